// The slice of node-rdkafka the Kafka log uses, typed here so that type-checking never needs
// the optional dependency, and its lazy loader: node-rdkafka is imported only when a Kafka
// log is opened, so the embedded default runs without it.

export interface RdError extends Error {
  code: number
  errno?: number
  isFatal?: boolean
  isRetriable?: boolean
}

export interface RdTopicPartition { topic: string; partition: number }
export interface RdTopicPartitionOffset extends RdTopicPartition { offset: number }

export interface RdMessage extends RdTopicPartitionOffset {
  value: Buffer | null
  key?: Buffer | string | null
  size: number
  timestamp?: number
}

export interface RdDeliveryReport extends RdTopicPartitionOffset {
  opaque?: unknown
}

type Conf = Record<string, string | number | boolean | ((...args: any[]) => void)>

export interface RdMetadata {
  topics: Array<{ name: string; partitions: Array<{ id: number; leader: number }> }>
}

interface RdClient {
  getMetadata(options: { topic?: string; timeout?: number }, cb: (err: RdError | null, metadata: RdMetadata) => void): unknown
  connect(options: { timeout?: number }, cb: (err: RdError | null) => void): unknown
  disconnect(cb?: (err: unknown) => void): unknown
  isConnected(): boolean
  on(event: string, listener: (...args: any[]) => void): unknown
}

export interface RdProducer extends RdClient {
  produce(topic: string, partition: number | null, value: Buffer, key: string, timestamp: number, opaque: unknown): unknown
  poll(): unknown
  flush(timeout: number, cb: (err: RdError | null) => void): unknown
}

export interface RdConsumer extends RdClient {
  subscribe(topics: string[]): unknown
  unsubscribe(): unknown
  consume(n: number, cb: (err: RdError | null, messages: RdMessage[]) => void): void
  setDefaultConsumeTimeout(ms: number): void
  commit(offsets: RdTopicPartitionOffset[]): unknown
  commitSync(offsets: RdTopicPartitionOffset[]): unknown
  assignments(): RdTopicPartition[]
  /** The group's committed offsets (one OffsetFetch; -1001: none). */
  committed(toppars: RdTopicPartition[], timeout: number, cb: (err: RdError | null, offsets?: RdTopicPartitionOffset[]) => void): unknown
  /** The watermarks the client last saw in a fetch response (-1001: unknown); throws when disconnected. */
  getWatermarkOffsets(topic: string, partition: number): { lowOffset: number; highOffset: number }
}

export interface RdAdminClient {
  createTopic(topic: { topic: string; num_partitions: number; replication_factor: number; config?: Record<string, string> },
    timeout: number, cb: (err: RdError | null) => void): void
  deleteTopic(topic: string, timeout: number, cb: (err: RdError | null) => void): void
  disconnect(): void
}

export interface RdKafka {
  Producer: new (conf: Conf, topicConf?: Conf) => RdProducer
  KafkaConsumer: new (conf: Conf, topicConf: Conf) => RdConsumer
  AdminClient: { create(conf: Conf): RdAdminClient }
  CODES: { ERRORS: Record<string, number> }
  librdkafkaVersion: string
}

let loaded: Promise<RdKafka> | undefined

/** node-rdkafka, imported on first use; a clear error when the optional dependency is absent. */
export function loadRdKafka(): Promise<RdKafka> {
  loaded ??= (async () => {
    const name = 'node-rdkafka' // a variable: the type checker must not resolve the optional module
    try {
      const mod = await import(name)
      return (mod.default ?? mod) as RdKafka
    } catch (err) {
      loaded = undefined
      throw new Error(`the Kafka observation log (LINTEL_LOG=kafka) needs node-rdkafka, ` +
        `which is not installed or failed to build (the scaled set-up installs it: npm run setup:scaled): ${(err as Error).message}`)
    }
  })()
  return loaded
}
