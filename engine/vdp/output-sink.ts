// Where the outputs of all running virtual datapoints go (issue 14 item 1): one ingest call per
// project per turn, not one per output. A store commit delivers thousands of inputs to the
// pipelines at once, synchronously (observation-bus.ts); their outputs are collected here and
// written together in a microtask after that delivery, so a batch of inputs becomes one batch
// of outputs (the profile of bench:vdp showed one append, a worker message and a promise per
// output as the largest cost of the engine). Order is kept: batches are handed to `ingest` in
// the order the outputs were emitted, and the store and the log keep that order.
//
// Each output names its owner (a running virtual datapoint), told once the output is durable
// or failed, so a catch-up can pace itself on its own outputs and a failure fails its owners.
import type { Ingest } from '../ingest-port.ts'
import type { Observation } from '../store/port.ts'

export interface OutputOwner {
  /** The output is durable (err undefined) or could not be written. */
  written(err?: Error): void
}

interface Batch { obs: Observation[]; owners: OutputOwner[] }

export class OutputSink {
  private batches = new Map<number, Batch>()
  private scheduled = false

  constructor (private readonly ingest: Ingest) {}

  write(projectId: number, obs: Observation, owner: OutputOwner): void {
    let b = this.batches.get(projectId)
    if (!b) this.batches.set(projectId, b = { obs: [], owners: [] })
    b.obs.push(obs)
    b.owners.push(owner)
    if (!this.scheduled) {
      this.scheduled = true
      queueMicrotask(() => this.flush())
    }
  }

  private flush(): void {
    this.scheduled = false
    const batches = this.batches
    this.batches = new Map()
    for (const [projectId, b] of batches) {
      this.ingest(projectId, b.obs).then(
        () => { for (const o of b.owners) o.written() },
        (err: Error) => { for (const o of b.owners) o.written(err) },
      )
    }
  }
}
