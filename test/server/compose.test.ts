// The composition root as a list (issue 30 item 5): parts start in list order and stop in the
// reverse order; a process runs the parts of its roles; a failed start stops what started; a
// failed stop does not keep the later parts (the stores) from closing. And the list itself
// keeps the shutdown order users rely on: stop accepting, store what was accepted, stop the
// runtimes, close the stores.
import t from 'tap'
import { runs, startParts, type Part } from '../../server/compose.ts'
import type { Role } from '../../server/config.ts'
import { PARTS } from '../../server/runtimes.ts'

const ALL = new Set<Role>(['api', 'broker', 'worker'])

function recorder() {
  const events: string[] = []
  const log = { debug: () => {}, error: (_o: object, msg: string) => { events.push(`logged ${msg}`) } }
  const part = (name: string, roles: readonly Role[] = ['api'], o: { failStart?: boolean; failStop?: boolean; when?: () => boolean } = {}): Part<object> => ({
    name, roles, when: o.when,
    start: async () => {
      if (o.failStart) throw new Error(`${name} cannot start`)
      events.push(`start ${name}`)
      return { stop: async () => { events.push(`stop ${name}`); if (o.failStop) throw new Error(`${name} cannot stop`) } }
    },
  })
  return { events, log, part }
}

t.test('started in list order, stopped in reverse, once', async (t) => {
  const { events, log, part } = recorder()
  const started = await startParts([part('a'), part('b'), { name: 'nothing to stop', roles: ['api'], start: async () => { events.push('start c') } }, part('d')], ALL, {}, log)
  t.same(started.names, ['a', 'b', 'nothing to stop', 'd'])
  await Promise.all([started.stop(), started.stop()]) // a signal during a test's teardown
  await started.stop()
  t.same(events, ['start a', 'start b', 'start c', 'start d', 'stop d', 'stop b', 'stop a'], 'each part stopped once')
})

t.test('a process runs the parts of its roles; `when` is asked at the part\'s turn', async (t) => {
  const { events, log, part } = recorder()
  const parts = [part('api', ['api']), part('worker', ['worker']), part('either', ['broker', 'worker']), part('after api', ['worker'], { when: () => events.includes('start api') })]
  const worker = await startParts(parts, new Set<Role>(['worker']), {}, log)
  t.same(worker.names, ['worker', 'either'], 'without the api part, the part that needs it does not run')
  events.length = 0
  const all = await startParts(parts, ALL, {}, log)
  t.same(all.names, ['api', 'worker', 'either', 'after api'])
  t.equal(runs(part('x', ['broker']), new Set<Role>(['api']), {}), false)
})

t.test('a failed start stops what started, in reverse, and fails with its error', async (t) => {
  const { events, log, part } = recorder()
  await t.rejects(startParts([part('a'), part('b'), part('c', ['api'], { failStart: true }), part('d')], ALL, {}, log), /c cannot start/)
  t.same(events, ['start a', 'start b', 'stop b', 'stop a'])
})

t.test('a failed stop: the others still stop, then the first failure is thrown', async (t) => {
  const { events, log, part } = recorder()
  const started = await startParts([part('store'), part('runtime', ['api'], { failStop: true }), part('intake', ['api'], { failStop: true })], ALL, {}, log)
  await t.rejects(started.stop(), /intake cannot stop/)
  t.same(events, ['start store', 'start runtime', 'start intake', 'stop intake', 'logged shutdown: intake failed', 'stop runtime', 'logged shutdown: runtime failed', 'stop store'])
})

t.test('the platform\'s list: what accepts work stops first, the stores last', async (t) => {
  const names = PARTS.map((p) => p.name)
  // Stop order is the reverse of this list: each pair is [stops later, stops earlier].
  const stopsAfter: [string, string][] = [
    ['catalog', 'observation path'], // the catalog closes last
    ['observation path', 'virtual datapoints'], // the store closes after the runtimes wrote their outputs
    ['observation path', 'alerts'],
    ['alerts', 'virtual datapoints'], // alerts see the last outputs of the virtual datapoints
    ['virtual datapoints', 'ingest queue drained'], // the runtimes run until the accepted observations are stored
    ['analytics schedule', 'ingest queue drained'],
    ['ingest queue drained', 'MQTT broker'], // the queue is drained once no publisher can add to it
    ['ingest queue drained', 'HTTP API'],
    ['MQTT broker', 'setpoints'], // the setpoints publish through the broker until they stop
    ['setpoints', 'HTTP API'], // requests in flight finish before the setpoints stop
    ['documents', 'HTTP API'], // uploads in flight finish before the document store closes
    ['metrics snapshots', 'ingest queue drained'], // the last snapshot counts what was stored
    ['metrics snapshots', 'MQTT broker'],
  ]
  for (const [later, earlier] of stopsAfter) {
    t.ok(names.indexOf(later) >= 0 && names.indexOf(later) < names.indexOf(earlier), `${later} stops after ${earlier}`)
  }
  t.same(PARTS.filter((p) => p.roles.length === 3).map((p) => p.name), ['catalog', 'observation path', 'metrics snapshots', 'metrics listener', 'analytics', 'ingest queue drained'], 'what every process runs')
})
