// Debian's mosquitto_pub and mosquitto_sub against the broker over TLS, as the README shows.
import t from 'tap'
import { execFile, spawn } from 'node:child_process'
import { promisify } from 'node:util'
import { livePlatform, until } from '../helpers/live-platform.ts'

const run = promisify(execFile)

t.test('mosquitto_pub --cafile over TLS stores; mosquitto_sub receives', async (t) => {
  const live = await livePlatform(t)
  const pid = await live.project('Mosquitto')
  const pub = await live.account(pid, 'mq-pub', 'write')
  const subAcc = await live.account(pid, 'mq-sub', 'read')
  const { tls } = live.platform.broker.ports
  const common = ['-h', 'localhost', '-p', String(tls), '--cafile', live.platform.caFile]

  const sub = spawn('mosquitto_sub', [...common, '-u', subAcc.username, '-P', subAcc.password, '-t', `lintel/p${pid}/#`, '-C', '1', '-v'])
  let received = ''
  sub.stdout.on('data', (d) => { received += d })
  t.teardown(() => { sub.kill() })
  t.ok(await until(() => live.platform.broker.metrics().connected_clients === 1), 'subscriber connected')

  await run('mosquitto_pub', [...common, '-u', pub.username, '-P', pub.password, '-q', '1', '-t', `lintel/p${pid}/ahu1`,
    '-m', 'ahu1/supply_temp value=19.5 1700000000000000000'])
  t.same((await live.read(pid, 'ahu1/supply_temp')).data, [{ time: '2023-11-14T22:13:20Z', value: 19.5 }])
  t.ok(await until(() => received.length > 0), 'mosquitto_sub received a message within the bound')
  t.equal(received.trim(), `lintel/p${pid}/ahu1 ahu1/supply_temp value=19.5 1700000000000000000`)

  await t.rejects(run('mosquitto_pub', [...common, '-u', pub.username, '-P', 'wrong-password', '-t', `lintel/p${pid}/x`, '-m', 'x value=1 1700000000000000000']),
    'a wrong password is refused')
  await t.rejects(run('mosquitto_pub', ['-h', 'localhost', '-p', String(tls), '-u', pub.username, '-P', pub.password, '-t', `lintel/p${pid}/x`, '-m', 'x', '-W', '3']),
    'plain TCP to the TLS port is refused')
})
