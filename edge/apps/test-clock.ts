// TEST ONLY: a clock an end-to-end test moves from outside the agent process (issue 31: no
// test waits for a wall-clock switching time). With LINTEL_EDGE_TEST_CLOCK=<port> the agent
// (`lintel edge`) runs on a VirtualClock (core/clock) instead of the system clock, starting at
// LINTEL_EDGE_TEST_CLOCK_START (ISO time; default the wall clock), and listens on
// 127.0.0.1:<port> (loopback only) for one JSON command per line, answering one JSON line:
//   {"advance": <µs>}  moves the clock forward, running every timer due on the way and letting
//                      the work each starts finish (writes, outbox appends) before the next
//   {"to": <µs>}       the same, up to an absolute time (never backwards)
//   {"status": true}   only answers
// Answer: {"now": <µs>, "ran": <timers run>, "status": {online, apps: [{app_id, revision, state}]}}
// or {"error": "..."}. The MQTT connection, its keep-alive and reconnects stay on wall time:
// only what the agent schedules (switching times, alive time-outs, the driver's timestamps)
// follows this clock. Production never sets the variable; nothing else reads it.
import { createServer, type Server } from 'node:net'
import { VirtualClock } from '../../core/clock/virtual-clock.ts'

export interface StatusSource {
  status(): unknown
  idle(): Promise<void>
}

export interface TestClock {
  clock: VirtualClock
  /** Starts answering on the port; `source` gives the status and waits for queued work. */
  serve(source?: StatusSource): Promise<Server>
}

/** The test clock the environment asks for, or undefined (production). */
export function testClockFromEnv(env: NodeJS.ProcessEnv = process.env): TestClock | undefined {
  const port = env.LINTEL_EDGE_TEST_CLOCK
  if (!port) return undefined
  if (!/^\d+$/.test(port) || Number(port) < 1 || Number(port) > 65535) throw new Error(`LINTEL_EDGE_TEST_CLOCK must be a port, got '${port}'`)
  const startMs = env.LINTEL_EDGE_TEST_CLOCK_START ? Date.parse(env.LINTEL_EDGE_TEST_CLOCK_START) : Date.now()
  if (Number.isNaN(startMs)) throw new Error(`LINTEL_EDGE_TEST_CLOCK_START must be an ISO time, got '${env.LINTEL_EDGE_TEST_CLOCK_START}'`)
  const clock = new VirtualClock(startMs * 1000)
  return {
    clock,
    serve: (source) => new Promise((resolve, reject) => {
      // One command at a time, across connections: moves of the clock never interleave.
      let queue = Promise.resolve()
      const server = createServer((socket) => {
        let buffered = ''
        socket.on('data', (chunk) => {
          buffered += chunk.toString('utf8')
          let nl: number
          while ((nl = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, nl); buffered = buffered.slice(nl + 1)
            queue = queue.then(async () => { socket.write(JSON.stringify(await run(clock, line, source)) + '\n') })
          }
        })
        socket.on('error', () => {})
      })
      server.once('error', reject)
      server.listen(Number(port), '127.0.0.1', () => { server.unref(); resolve(server) })
    }),
  }
}

async function run(clock: VirtualClock, line: string, source: StatusSource | undefined): Promise<object> {
  try {
    const cmd = JSON.parse(line) as { advance?: number; to?: number; status?: boolean }
    const target = cmd.advance !== undefined ? clock.now() + cmd.advance : cmd.to
    const ran = target === undefined ? 0 : await moveClock(clock, target, source)
    await source?.idle()
    return { now: clock.now(), ran, status: source?.status() }
  } catch (err) {
    return { error: (err as Error).message }
  }
}

/**
 * Moves a virtual clock to `target` one timer at a time, letting the work each timer starts
 * finish (source.idle()) before the next runs, as it would in real time. Returns the timers run.
 */
export async function moveClock(clock: VirtualClock, target: number, source?: StatusSource): Promise<number> {
  if (!Number.isSafeInteger(target) || target < clock.now()) throw new Error(`cannot move the clock to ${target} (now ${clock.now()})`)
  let ran = 0
  for (let next = clock.nextAt; next !== undefined && next <= target; next = clock.nextAt) {
    ran += await clock.settle(next - clock.now())
    await source?.idle()
  }
  await clock.settle(target - clock.now())
  await source?.idle()
  return ran
}
