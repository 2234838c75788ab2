// Shared helpers of the benchmarks: start a platform child process, medians, NDJSON output.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export const ADMIN = { email: 'bench@lintel.test', password: 'bench-password' }
export const basicHeader = 'Basic ' + Buffer.from(`${ADMIN.email}:${ADMIN.password}`).toString('base64')

export interface Server { url: string; child: ChildProcess; dataDir: string; mqtt: { tls: number; ws: number; tcp?: number }; caFile: string; stop: () => Promise<void> }

/**
 * Starts `npm start`'s entry point on a fresh data directory and an ephemeral port.
 * BENCH_NODE_ARGS adds Node options to the server, e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof".
 */
export async function startServer(env: Record<string, string> = {}, preload: string[] = []): Promise<Server> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lintel-bench-'))
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== '')
  const child = spawn(process.execPath, [...nodeArgs, ...startOptions(), ...preload.flatMap((p) => ['--import', p]), 'server/main.ts'], {
    env: {
      ...process.env, LINTEL_DATA_DIR: dataDir, LINTEL_HTTP_PORT: '0', LINTEL_MQTT_TLS_PORT: '0', LINTEL_MQTT_WS_PORT: '0', LINTEL_LOG_LEVEL: 'warn',
      LINTEL_COMPANY_NAME: 'Bench', LINTEL_ADMIN_EMAIL: ADMIN.email, LINTEL_ADMIN_PASSWORD: ADMIN.password, ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  // The port is only logged at info level; ask the process for it through a ready line.
  let out = ''
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d
      const m = out.match(/listening on (http:\/\/\S+)\n.*\n/)
      if (m) resolve(m[1])
    })
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${out}`)))
  })
  const port = (re: RegExp) => { const m = re.exec(out); return m ? Number(m[1]) : undefined }
  return {
    url, child, dataDir,
    mqtt: { tls: port(/mqtts:\/\/[^:]+:(\d+)/)!, ws: port(/wss:\/\/[^:]+:(\d+)/)!, tcp: port(/ mqtt:\/\/[^:]+:(\d+)/) },
    caFile: /CA file (\S+)\)/.exec(out)![1],
    stop: async () => { child.kill('SIGTERM'); await once(child, 'exit'); rmSync(dataDir, { recursive: true, force: true }) },
  }
}

/** The Node options of `npm start` (package.json: heap settings, the TypeScript loader), so a benchmark runs the server as users do. */
export function startOptions(): string[] {
  const start = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start
  const m = /^exec node (.*) server\/main\.ts$/.exec(start)
  if (!m) throw new Error(`bench/lib.ts cannot read the Node options of npm start: '${start}'`)
  return m[1].split(' ').filter((a) => a !== '')
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}

export const emit = (o: object): void => { process.stdout.write(JSON.stringify(o) + '\n') }
export const progress = (s: string): void => { process.stderr.write(s + '\n') }

/** Creates a project through the API and returns its id. */
export async function createProject(server: Server, name: string): Promise<number> {
  const res = await fetch(`${server.url}/v2/company/project`, {
    method: 'POST', headers: { authorization: basicHeader, 'content-type': 'application/json' }, body: JSON.stringify({ name }),
  })
  if (res.status !== 201) throw new Error(`create project: ${res.status} ${await res.text()}`)
  return (await res.json()).resource.project.id
}

/** Peak resident memory of a process (VmHWM), MiB; Linux only. */
export async function peakRssMb(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises')
  const m = /VmHWM:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))
  return m ? Math.round(Number(m[1]) / 1024) : NaN
}

/** Resident memory of a process now (VmRSS), KiB; Linux only. */
export function rssKb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) : NaN
}

/**
 * CPU time (user + system, all threads) a process has used so far, in ms, from
 * /proc/<pid>/stat (clock ticks of 10 ms); NaN where there is no /proc.
 */
export function processCpuMs(pid: number): number {
  try {
    // Fields after the command name, which is in parentheses and may contain blanks.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(f[11]) + Number(f[12])) * 10 // utime, stime (fields 14 and 15)
  } catch {
    return NaN
  }
}

/** POST as the bench admin; returns the parsed answer or throws. */
export async function api(server: Server, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(server.url + path, {
    method, headers: { authorization: basicHeader, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const answer = await res.json()
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(answer)}`)
  return answer
}

/** Writes `minutes` 1-minute observations of series `dataPointID` from `y0` (ms) over HTTP JSON,
 *  a month (43,200) a request (bench:reads and bench:haystack-his read the same year). */
export async function writeMinuteSeries(pool: { request: (o: { path: string; method: 'POST'; headers: Record<string, string>; body: string }) => Promise<{ statusCode: number; body: { text(): Promise<string> } }> },
  pid: number, dataPointID: string, y0: number, minutes: number, value: (i: number) => number): Promise<void> {
  for (let from = 0; from < minutes; from += 43_200) {
    const obs = []
    for (let i = from; i < Math.min(minutes, from + 43_200); i++) obs.push({ time: new Date(y0 + i * 60_000).toISOString(), value: value(i) })
    const res = await pool.request({ path: `/v2/project/${pid}/timeseries`, method: 'POST', headers: { authorization: basicHeader, 'content-type': 'application/json' }, body: JSON.stringify({ [dataPointID]: obs }) })
    const text = await res.body.text()
    if (res.statusCode !== 200) throw new Error(`ingest: ${res.statusCode} ${text}`)
  }
}
