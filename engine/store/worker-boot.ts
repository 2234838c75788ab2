// Starting a TypeScript module as a worker thread (the SQLite store's writer and readers):
// the worker runs the module through tsx's loader API, so it starts the same way under
// `node --import tsx`, tap or anything else (and without inheriting their flags).
import { Worker } from 'node:worker_threads'

const BOOT = `
const { workerData } = require('node:worker_threads')
const go = workerData.loader
  ? import(workerData.loader).then((api) => api.tsImport(workerData.entry, workerData.entry))
  : import(workerData.entry)
go.catch((err) => { setImmediate(() => { throw err }) })
`

/** Node options of the workers (default none): LINTEL_WORKER_NODE_ARGS, e.g. "--cpu-prof --cpu-prof-dir=/tmp/p" to profile the store's writer and readers (bench/vdp.ts BENCH_PROFILE). */
const workerArgs = (process.env.LINTEL_WORKER_NODE_ARGS ?? '').split(' ').filter((a) => a !== '')

export function spawnModuleWorker(url: string, data: object): Worker {
  const loader = url.endsWith('.ts') ? import.meta.resolve('tsx/esm/api') : undefined
  return new Worker(BOOT, { eval: true, execArgv: workerArgs, workerData: { ...data, entry: url, loader } })
}
