// A worker's live relay alone (engine/live/redis-channel.ts), in a process a test can kill
// (test/engine/live-relay-gap.test.ts). Each line of stdin is one stored batch,
// `[project, [[series, time, value], ...]]`, published on the worker's bus as storeThenBus
// does after the store write; `published <n>` on stdout says the relay handed it to its Redis
// client (written, or queued while the connection is down).
import { createInterface } from 'node:readline'
import { ObservationBus } from '../../engine/observation-bus.ts'
import { startLiveRelay } from '../../engine/live/redis-channel.ts'

const bus = new ObservationBus()
startLiveRelay({ redisUrl: process.env.LINTEL_REDIS_URL!, bus, projectOfAlert: async () => undefined, onError: () => {} })
let n = 0
createInterface({ input: process.stdin }).on('line', (line) => {
  const [project, rows] = JSON.parse(line) as [number, [number, number, number][]]
  bus.publish(rows.map(([series, time, value]) => ({ series, time, value })), project)
  process.stdout.write(`published ${++n}\n`)
})
process.stdout.write('ready\n')
