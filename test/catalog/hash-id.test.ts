import t from 'tap'
import { base62, hashId } from '../../catalog/hash-id.ts'

// Vectors computed independently (Python hashlib, big-endian integer, alphabet 0-9A-Za-z).
t.test('SHA1 → base62 → first hash_id_length characters', async (t) => {
  t.equal(hashId('temperature'), 'G0ah2WCY')
  t.equal(hashId('temperature', 12), 'G0ah2WCYd0Hk')
  t.equal(hashId('temperature', 4), 'G0ah')
  t.equal(hashId('Raum 1/Temp "Süd"'), 'OAAvd2g4', 'UTF-8 bytes of non-ASCII identifiers')
  t.equal(hashId('a', 12), 'JFz5KuQyxyOA')
})

t.test('base62 of small numbers', async (t) => {
  t.equal(base62(new Uint8Array([0])), '0')
  t.equal(base62(new Uint8Array([61])), 'z')
  t.equal(base62(new Uint8Array([62])), '10')
})
