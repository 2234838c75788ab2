// An async mutex shared by the catalog adapters: their transactions run one at a time per
// process, in arrival order (catalog/port.ts, "Transactions").
/** An async mutex: `acquire` resolves, in call order, with the release of the lock. */
export class Gate {
  private tail: Promise<void> = Promise.resolve()
  /** Settles when the current holder releases; undefined when nobody holds the lock. */
  held: Promise<void> | undefined

  async acquire(): Promise<() => void> {
    let release!: () => void
    const mine = new Promise<void>((resolve) => { release = resolve })
    const before = this.tail
    this.tail = before.then(() => mine)
    await before
    this.held = mine
    return () => {
      if (this.held === mine) this.held = undefined
      release()
    }
  }

  /** Waits until no transaction holds the lock (another may start right after). */
  async idle(): Promise<void> {
    while (this.held) await this.held
  }
}
