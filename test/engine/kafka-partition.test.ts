// The Kafka log chooses each record's partition itself (murmur2 of the project key, as
// librdkafka's murmur2 partitioner and the Java client do), so that workers can tell which
// projects their partitions carry. The vectors are those of Kafka's own UtilsTest.testMurmur2.
import t from 'tap'
import { keyPartition, murmur2 } from '../../engine/log/kafka-partition.ts'

t.test('murmur2 gives the Java client\'s values', async (t) => {
  const cases: [string, number][] = [
    ['21', -973932308], ['foobar', -790332482], ['a-little-bit-long-string', -985981536],
    ['a-little-bit-longer-string', -1486304829], ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971], ['abc', 479470107],
  ]
  for (const [key, want] of cases) t.equal(murmur2(Buffer.from(key)), want, key)
})

t.test('a key\'s partition is the positive murmur2 modulo the partition count', async (t) => {
  t.equal(keyPartition('21', 6), (-973932308 & 0x7fffffff) % 6)
  const seen = new Set(Array.from({ length: 60 }, (_, i) => keyPartition(String(i + 1), 6)))
  t.same([...seen].sort(), [0, 1, 2, 3, 4, 5], '60 projects spread over all 6 partitions')
})
