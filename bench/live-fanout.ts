// The live hub's hot path alone (api/live/hub.ts): one observations frame (protocol/
// live-messages.ts) sent to BENCH_SOCKETS server-side ws sockets, as the hub sent it before
// (a string: ws measures and encodes it to UTF-8 again for every socket) and as it sends it now
// (one Buffer for every socket, marked as text), alternated in one process. Loopback clients
// in the same process read and drop; each fan-out is timed on the main thread, then the sockets
// are let drain. Prints the median time per fan-out of each kind and their ratio.
// Usage: npm run bench:live-fanout   (BENCH_SOCKETS 1000, BENCH_POINTS 10 per frame, BENCH_ROUNDS 200)
import { once } from 'node:events'
import WebSocket, { WebSocketServer } from 'ws'
import { observationsFrame } from '../protocol/live-messages.ts'
import { emit, median, progress } from './lib.ts'

const sockets = Number(process.env.BENCH_SOCKETS ?? 1000)
const pointsPerFrame = Number(process.env.BENCH_POINTS ?? 10) // bench:live: 10 observations per datapoint per 100 ms
const rounds = Number(process.env.BENCH_ROUNDS ?? 200)

const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false })
await once(wss, 'listening')
const server: WebSocket[] = []
wss.on('connection', (s) => server.push(s))
const clients: WebSocket[] = []
for (let i = 0; i < sockets; i++) {
  const c = new WebSocket(`ws://127.0.0.1:${(wss.address() as { port: number }).port}`, { perMessageDeflate: false })
  c.on('message', () => {})
  clients.push(c)
  await once(c, 'open')
}
while (server.length < sockets) await new Promise((r) => setTimeout(r, 10))
progress(`${sockets} sockets open; ${rounds} rounds of each kind`)

const t0 = Date.UTC(2024, 0, 1) * 1000
const points = Array.from({ length: pointsPerFrame }, (_, i) => ({ time: t0 + i * 1e6, value: 20 + i / 7 }))
const frame = () => observationsFrame(1, 'Büro 3/Temperatur', points)
const times: Record<'string' | 'buffer', number[]> = { string: [], buffer: [] }
for (let r = 0; r < rounds; r++) {
  for (const kind of r % 2 ? ['buffer', 'string'] as const : ['string', 'buffer'] as const) {
    const start = performance.now()
    if (kind === 'string') { const s = frame(); for (const ws of server) ws.send(s) } else { const b = Buffer.from(frame()); for (const ws of server) ws.send(b, { binary: false }) }
    times[kind].push(performance.now() - start)
    while (server.some((ws) => ws.bufferedAmount > 0)) await new Promise((r) => setTimeout(r, 1))
  }
}
for (const c of clients) c.terminate()
wss.close()
const ms = (xs: number[]) => Math.round(median(xs) * 1000) / 1000
emit({
  bench: 'live-fanout', sockets, frame_bytes: Buffer.byteLength(frame()), rounds,
  string_ms: ms(times.string), buffer_ms: ms(times.buffer), ratio: Math.round((median(times.string) / median(times.buffer)) * 100) / 100,
})
