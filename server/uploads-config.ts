// Configuration of the bounds on running document uploads (issue 29; engine/blobs/upload-gate.ts),
// read by server/config.ts:
//   LINTEL_UPLOADS_PER_COMPANY   uploads of one company at once (default 4; 429 beyond)
//   LINTEL_UPLOADS_PER_NODE      uploads on this server at once (default 8; 503 beyond); with
//                                LINTEL_BLOBS=s3 each holds up to ~40 MiB of memory
//   LINTEL_UPLOAD_TEMP_MB        bytes running uploads may hold before commit, MiB (default 8192; 503 beyond)
//   LINTEL_UPLOAD_MIN_RATE_KB    slowest accepted body, KiB/s over each window (default 16; 0: off; 408 below)
//   LINTEL_UPLOAD_RATE_WINDOW_S  that window, seconds (default 30)
import { DEFAULT_UPLOAD_LIMITS, type UploadLimits } from '../engine/blobs/upload-gate.ts'

type Int = (name: string, fallback: number, min: number, max: number) => number

export function readUploadLimits(int: Int): UploadLimits {
  const d = DEFAULT_UPLOAD_LIMITS
  return {
    perCompany: int('LINTEL_UPLOADS_PER_COMPANY', d.perCompany, 1, 10_000),
    perNode: int('LINTEL_UPLOADS_PER_NODE', d.perNode, 1, 10_000),
    tempBytes: int('LINTEL_UPLOAD_TEMP_MB', d.tempBytes / 1024 ** 2, 1, 1024 ** 3) * 1024 ** 2,
    minBytesPerSecond: int('LINTEL_UPLOAD_MIN_RATE_KB', d.minBytesPerSecond / 1024, 0, 1024 * 1024) * 1024,
    rateWindowMs: int('LINTEL_UPLOAD_RATE_WINDOW_S', d.rateWindowMs / 1000, 1, 3600) * 1000,
  }
}
