// One server per data directory (issue 15 item 4): two servers on one embedded store and one
// in-process observation bus would each miss the other's observations (virtual datapoints
// lose inputs). The server holds `<data>/server.lock`, created exclusively (O_EXCL) with its
// pid and the process start time; a second server finds it and refuses, naming the pid.
// A lock left behind by `kill -9` does not block: its pid is no longer alive, or (pid
// reused by another process) the start time differs, and the next server takes it over.
// The operator tool (server/cli.ts) never takes the lock: it works beside a running server
// (SQLite WAL, busy timeout).
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { StartupError } from './preflight.ts'

export class DataDirLockedError extends StartupError {
  constructor (readonly dir: string, readonly pid: number) {
    super(`the data directory '${dir}' is in use by another Lintel server (pid ${pid}): stop it first, or choose another LINTEL_DATA_DIR`)
  }
}

interface Holder { pid: number; started: string | null }

/** Start time of a process (Linux: field 22 of /proc/<pid>/stat, clock ticks since boot), or null. */
function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null
  } catch {
    return null
  }
}

function alive(holder: Holder): boolean {
  try {
    process.kill(holder.pid, 0)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  // The pid is taken: by the holder, unless its start time says another process reuses it.
  const now = startTimeOf(holder.pid)
  return holder.started === null || now === null || now === holder.started
}

function readHolder(file: string): Holder | undefined {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<Holder>
    return typeof parsed.pid === 'number' ? { pid: parsed.pid, started: parsed.started ?? null } : undefined
  } catch {
    return undefined // gone meanwhile, or half-written by a holder that died: stale
  }
}

/** Takes the lock of `dir` (created if missing) for this process; the result releases it. */
export function lockDataDir(dir: string): { release: () => void } {
  mkdirSync(dir, { recursive: true })
  const file = join(dir, 'server.lock')
  const me: Holder = { pid: process.pid, started: startTimeOf(process.pid) }
  for (let attempt = 0; attempt < 5; attempt++) {
    let fd: number
    try {
      fd = openSync(file, 'wx')
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err
      const holder = readHolder(file)
      if (holder && alive(holder)) throw new DataDirLockedError(dir, holder.pid)
      // Stale: the holder is gone. Remove and try again (another starter may win the race).
      try { unlinkSync(file) } catch { /* removed by a concurrent starter */ }
      continue
    }
    writeSync(fd, JSON.stringify(me) + '\n')
    closeSync(fd)
    let released = false
    return {
      release: () => {
        if (released) return
        released = true
        // Only our own lock: never remove one a successor took over.
        if (readHolder(file)?.pid === me.pid) try { unlinkSync(file) } catch { /* already gone */ }
      },
    }
  }
  throw new Error(`cannot take the lock ${file}: it keeps changing`)
}
