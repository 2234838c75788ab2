import t from 'tap'
import { hashPassword, verifyPassword } from '../../catalog/passwords.ts'

t.test('passwords are salted scrypt hashes', async (t) => {
  const a = hashPassword('correct horse')
  const b = hashPassword('correct horse')
  t.match(a, /^scrypt\$16384\$8\$1\$/)
  t.not(a, b, 'a fresh salt per hash')
  t.notMatch(a, /correct horse/)
  t.ok(await verifyPassword('correct horse', a))
  t.notOk(await verifyPassword('correct horsf', a))
  t.notOk(await verifyPassword('x', 'garbage'), 'a malformed stored hash never verifies')
})
