// Kafka's partition of a keyed record (kafka-log.ts): the log chooses the partition of a
// project's records itself, and workers use the same function to know which projects their
// partitions carry (issue 17 item 3).

/** Kafka's murmur2 (the Java client's Utils.murmur2) of a byte string, as a signed 32-bit int. */
export function murmur2(data: Uint8Array): number {
  const m = 0x5bd1e995
  const len = data.length
  let h = 0x9747b28c ^ len
  const whole = len & ~3
  for (let i = 0; i < whole; i += 4) {
    let k = data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24)
    k = Math.imul(k, m)
    k ^= k >>> 24
    k = Math.imul(k, m)
    h = Math.imul(h, m) ^ k
  }
  const tail = len & 3
  if (tail === 3) h ^= data[whole + 2] << 16
  if (tail >= 2) h ^= data[whole + 1] << 8
  if (tail >= 1) { h ^= data[whole]; h = Math.imul(h, m) }
  h ^= h >>> 13
  h = Math.imul(h, m)
  h ^= h >>> 15
  return h | 0
}

/** The partition of a key among n: (murmur2 & 0x7fffffff) % n, Kafka's default for keyed records. */
export function keyPartition(key: string, n: number): number {
  return (murmur2(Buffer.from(key)) & 0x7fffffff) % n
}
