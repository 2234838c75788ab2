// Scaled adapter of the document store: any S3-compatible object storage (S3Proxy in tests),
// links presigned by the AWS SDK, so downloads never pass through the platform (spec 1
// "Documents"). Uploads stream as a multipart upload in 8 MiB parts, 3 on the wire at once:
// memory stays near four parts (32 MiB) whatever the file size; a failed upload is aborted,
// so no object (and no orphaned part) appears.
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateBucketCommand, CreateMultipartUploadCommand,
  DeleteObjectCommand, GetObjectCommand, HeadBucketCommand, HeadObjectCommand,
  ListObjectsV2Command, PutObjectCommand, S3Client, UploadPartCommand,
} from '@aws-sdk/client-s3'
import { getSignedUrl } from '@aws-sdk/s3-request-presigner'
import type { Readable } from 'node:stream'
import { assertKey, type BlobLink, type BlobStore, type LinkOptions } from './port.ts'

export interface S3BlobOptions {
  endpoint: string
  bucket: string
  accessKeyId: string
  secretAccessKey: string
  region?: string
  /** Bytes per multipart part (at least 5 MiB, the S3 minimum). */
  partSize?: number
  /** Parts uploaded at the same time (memory: about (parallel + 1) × partSize per upload). */
  parallel?: number
}

const MiB = 1024 * 1024

export async function openS3BlobStore(o: S3BlobOptions): Promise<BlobStore> {
  const client = new S3Client({
    endpoint: o.endpoint, region: o.region ?? 'us-east-1', forcePathStyle: true,
    credentials: { accessKeyId: o.accessKeyId, secretAccessKey: o.secretAccessKey },
    // S3-compatible servers do not all know the SDK's default CRC checksums: only where required.
    requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED',
  })
  const Bucket = o.bucket
  const partSize = Math.max(5 * MiB, o.partSize ?? 8 * MiB)
  const parallel = Math.max(1, o.parallel ?? 3)
  try {
    await client.send(new HeadBucketCommand({ Bucket }))
  } catch (err) {
    if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode !== 404) throw err
    await client.send(new CreateBucketCommand({ Bucket }))
  }

  const put = async (Key: string, body: Readable): Promise<void> => {
    assertKey(Key)
    let UploadId: string | undefined
    const parts: { ETag?: string; PartNumber: number }[] = []
    const inFlight: Promise<void>[] = []
    let chunks: Buffer[] = []
    let length = 0
    const sendPart = async (data: Buffer) => {
      UploadId ??= (await client.send(new CreateMultipartUploadCommand({ Bucket, Key }))).UploadId
      // At most `parallel` parts on the wire while the next one fills: memory stays bounded.
      while (inFlight.length >= parallel) await inFlight.shift()
      const PartNumber = parts.length + 1
      const entry = { PartNumber, ETag: undefined as string | undefined }
      parts.push(entry)
      const sent = client.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber, Body: data })).then((r) => { entry.ETag = r.ETag })
      sent.catch(() => {}) // awaited below; never an unhandled rejection meanwhile
      inFlight.push(sent)
    }
    try {
      for await (const chunk of body) {
        chunks.push(chunk as Buffer)
        length += (chunk as Buffer).length
        if (length >= partSize) {
          const data = Buffer.concat(chunks, length)
          chunks = []
          length = 0
          await sendPart(data)
        }
      }
      const rest = Buffer.concat(chunks, length)
      if (UploadId === undefined) {
        await client.send(new PutObjectCommand({ Bucket, Key, Body: rest, ContentLength: rest.length }))
        return
      }
      if (rest.length > 0) await sendPart(rest)
      await Promise.all(inFlight)
      await client.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: parts } }))
    } catch (err) {
      await Promise.allSettled(inFlight)
      if (UploadId !== undefined) await client.send(new AbortMultipartUploadCommand({ Bucket, Key, UploadId })).catch(() => {})
      throw err
    }
  }

  const keysUnder = async function* (Prefix: string, Delimiter?: string) {
    let ContinuationToken: string | undefined
    do {
      const page = await client.send(new ListObjectsV2Command({ Bucket, Prefix, Delimiter, ContinuationToken }))
      yield page
      ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined
    } while (ContinuationToken)
  }

  return {
    kind: 's3',
    put,
    async link(Key: string, l: LinkOptions): Promise<BlobLink> {
      assertKey(Key)
      const disposition = l.filename === undefined ? undefined : `attachment; filename*=UTF-8''${encodeURIComponent(l.filename)}`
      const url = await getSignedUrl(client, new GetObjectCommand({ Bucket, Key, ResponseContentDisposition: disposition }), {
        expiresIn: l.expiresInSeconds, signingDate: l.now,
      })
      return { url, validUntil: new Date(l.now.getTime() + l.expiresInSeconds * 1000) }
    },
    async size(Key: string): Promise<number | undefined> {
      assertKey(Key)
      try {
        return (await client.send(new HeadObjectCommand({ Bucket, Key }))).ContentLength
      } catch (err) {
        if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return undefined
        throw err
      }
    },
    async delete(Key: string): Promise<void> {
      assertKey(Key)
      await client.send(new DeleteObjectCommand({ Bucket, Key }))
    },
    async deletePrefix(prefix: string): Promise<void> {
      assertKey(prefix)
      for await (const page of keysUnder(`${prefix}/`)) {
        // One DELETE per object, 8 at a time: S3Proxy answers DeleteObjects (POST ?delete)
        // with 501 NotImplemented when the SDK sends its checksum headers.
        const keys = (page.Contents ?? []).map((c) => c.Key!)
        for (let i = 0; i < keys.length; i += 8) {
          await Promise.all(keys.slice(i, i + 8).map((Key) => client.send(new DeleteObjectCommand({ Bucket, Key }))))
        }
      }
    },
    async listPrefixes(): Promise<string[]> {
      const out: string[] = []
      for await (const page of keysUnder('', '/')) for (const p of page.CommonPrefixes ?? []) out.push(p.Prefix!.replace(/\/$/, ''))
      return out
    },
    async close() { client.destroy() },
  }
}
