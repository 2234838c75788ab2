// A TCP port free on loopback right now, for a child platform that must listen on a port
// the test knows before it starts (the port is released again before it is returned).
import { createServer } from 'node:net'

export async function freePort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))
  const { port } = s.address() as { port: number }
  await new Promise((resolve) => s.close(resolve))
  return port
}
