// The edge's durable outbox (edge/apps/outbox.ts) on a real directory: what was not
// acknowledged is there again after a reopen (a crash), a line torn by a crash is dropped,
// and an acknowledged file is emptied once it has grown (after the apps saved their seq).
import t from 'tap'
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Outbox } from '../../edge/apps/outbox.ts'

t.test('unacknowledged lines survive a reopen; a torn last line is dropped', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lintel-outbox-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const a = new Outbox(dir)
  let woke = 0
  a.onAppend(() => { woke++ })
  for (let seq = 1; seq <= 5; seq++) a.append({ type: 'APPLOG', app_id: 'x', seq })
  t.equal(woke, 5, 'the sender is woken on each append')
  t.equal(a.size, 5)
  a.ack(2)
  t.same(a.peek(0, 10).map((l) => JSON.parse(l).seq), [3, 4, 5])
  appendFileSync(join(dir, 'outbox.ndjson'), '{"type":"APPLOG","app_id":"x","se') // killed in the middle of a write
  const b = new Outbox(dir)
  t.same(b.peek(0, 10).map((l) => JSON.parse(l).seq), [3, 4, 5], 'sent again from the first unacknowledged line')
  t.same(b.takeHistory().map((m) => m.seq), [1, 2, 3, 4, 5], 'the whole history, for the seq counters')
  t.same(b.takeHistory(), [], 'once')
})

t.test('an acknowledged outbox is emptied once it has grown, after the apps saved', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'lintel-outbox-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  let saved = 0
  const o = new Outbox(dir, () => { saved++ })
  for (let i = 0; i < 10_000; i++) o.append({ seq: i + 1 })
  o.ack(9_999)
  t.equal(saved, 0, 'not while a line is pending')
  o.ack(1)
  t.equal(saved, 1)
  t.equal(readFileSync(join(dir, 'outbox.ndjson'), 'utf8'), '')
  o.append({ seq: 10_001 })
  t.same(new Outbox(dir).peek(0, 5).map((l) => JSON.parse(l).seq), [10_001])
})
