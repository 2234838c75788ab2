// `lintel edge --config FILE` checks the file at start (issue 32 item 1): one line per mistake
// (file, path, reason) and exit code 2, before anything connects. Runs the real command.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { checkEdgeConfig } from '../../edge/config/schema.ts'
import { runEdgeCommand } from '../helpers/edge-processes.ts'

const GOOD = {
  broker: { url: 'mqtts://127.0.0.1:8884', account: 'plant-gw', project: 'eu1/hq', ca: 'ca.pem' },
  state_dir: 'state',
  drivers: [{ type: 'modbus', name: 'meter', host: '127.0.0.1', points: [{ id: 'meter/power', kind: 'holding', address: 0, type: 'float32' }] }],
}

t.test('a YAML file with several mistakes: every one on its own line with its path, exit 2', async (t) => {
  const dir = t.testdir()
  const file = join(dir, 'edge.yaml')
  writeFileSync(file, `broker:
  url: mqtt://127.0.0.1:1883
  account: plant-gw
  project: eu1
state_dir: state
buffer:
  max_bytes: 10KB
drivers:
  - type: modbus
    name: meter
    host: 10.0.0.5
    poll_ms: 10
    points:
      - { id: meter/power, kind: holding, address: 0, type: float128 }
      - { id: meter/power, kind: input, address: 70000, type: int16, writable: true }
  - type: profibus
    name: x
`)
  const r = await runEdgeCommand(t, ['--config', file])
  t.equal(r.code, 2, 'exit code 2')
  const lines = r.stderr.trim().split('\n')
  t.same(lines, [
    `lintel edge: ${file}: broker.url: must be mqtts://HOST:PORT (TLS), got "mqtt://127.0.0.1:1883"`,
    `lintel edge: ${file}: broker.project: must be GROUP/HANDLE, got "eu1"`,
    `lintel edge: ${file}: buffer.max_bytes: must be a size of at least 1MiB (a number of bytes or text like 512MiB), got "10KB"`,
    `lintel edge: ${file}: drivers[0].poll_ms: must be an integer from 50 to inf, got 10`,
    `lintel edge: ${file}: drivers[0].points[0].type: must be one of int16, uint16, int32, uint32, float32, float64, got "float128"`,
    `lintel edge: ${file}: drivers[0].points[1].writable: an input register cannot be written (only coils and holding registers)`,
    `lintel edge: ${file}: drivers[0].points[1].address: must be an integer from 0 to 65535, got 70000`,
    `lintel edge: ${file}: drivers[1].type: must be one of modbus, bacnet, got "profibus"`,
    `lintel edge: ${file}: drivers[0].points[1].id: 'meter/power' is already the id of drivers[0].points[0]`,
  ], 'one line per mistake, nothing else')
  t.equal(r.stdout, '', 'nothing started')
})

t.test('unreadable, unparsable and incomplete files; the password from the environment', async (t) => {
  const dir = t.testdir()
  const missing = await runEdgeCommand(t, ['--config', join(dir, 'nope.json')])
  t.equal(missing.code, 2)
  t.match(missing.stderr, /nope\.json: cannot be read \(ENOENT\)/)
  writeFileSync(join(dir, 'bad.json'), '{"broker": ')
  const bad = await runEdgeCommand(t, ['--config', join(dir, 'bad.json')])
  t.equal(bad.code, 2)
  t.match(bad.stderr, /bad\.json: not valid JSON: /)
  writeFileSync(join(dir, 'empty.json'), '{}')
  const empty = await runEdgeCommand(t, ['--config', join(dir, 'empty.json')])
  t.equal(empty.code, 2)
  t.same(empty.stderr.trim().split('\n').map((l) => l.split(': ').slice(2).join(': ')), [
    'broker: is required (an object with url, account, project)', 'state_dir: is required', 'drivers: must be a non-empty list',
  ])
  writeFileSync(join(dir, 'good.json'), JSON.stringify(GOOD))
  const nopass = await runEdgeCommand(t, ['--config', join(dir, 'good.json')], { LINTEL_EDGE_PASSWORD: '' })
  t.equal(nopass.code, 2)
  t.match(nopass.stderr, /broker\.password_env: set LINTEL_EDGE_PASSWORD to the password of account plant-gw/)
  const noca = await runEdgeCommand(t, ['--config', join(dir, 'good.json')], { LINTEL_EDGE_PASSWORD: 'x' })
  t.equal(noca.code, 2)
  t.match(noca.stderr, new RegExp(`broker\\.ca: cannot read ${dir}/ca\\.pem \\(ENOENT\\)`), 'relative paths are taken from the file\'s folder')
})

t.test('defaults and unknown keys', async (t) => {
  const ok = checkEdgeConfig(GOOD)
  t.same(ok.errors, [])
  const c = (ok as any).config
  t.same(c.buffer, { max_bytes: 1024 ** 3, lines_per_message: 2000, in_flight: 16 })
  t.same(c.drivers[0].points[0], { id: 'meter/power', unit_id: 1, kind: 'holding', address: 0, type: 'float32', byte_order: 'big', word_order: 'big', scale: 1, offset: 0, unit: undefined, description: undefined, writable: false, relinquish_default: undefined })
  t.same(c.health, { interval_s: 10, prefix: 'edge/plant-gw' })
  const typo = checkEdgeConfig({ ...GOOD, bufer: {}, drivers: [{ ...GOOD.drivers[0], points: [{ ...GOOD.drivers[0].points[0], adress: 3 }] }] })
  t.same(typo.errors, [
    'bufer: unknown key (known: broker, state_dir, buffer, health, drivers)',
    'drivers[0].points[0].adress: unknown key (known: id, unit_id, kind, address, type, byte_order, word_order, scale, offset, unit, description, writable, relinquish_default)',
  ])
  t.same(checkEdgeConfig({ ...GOOD, drivers: [{ type: 'bacnet', name: 'b', address: 'x', points: [{ id: 'a', object: 'analog-input:1' }, { id: 'b', object: 'door:1' }] }] }).errors, [
    'drivers[0].address: must be host:port, got "x"',
    'drivers[0].device_instance: is required',
    'drivers[0].points[1].object: must be <type>:<instance> with type one of analog-input, analog-output, analog-value, binary-input, binary-output, binary-value, multi-state-input, multi-state-output, multi-state-value and instance 0..4194302, got "door:1"',
  ])
})
