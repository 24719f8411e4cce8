// The reporter's bounded buffer: records wait here, oldest first, until a batch takes them. When it is full a new
// record pushes out the oldest, which is counted by kind, so what was lost can be told to the service.

/** Records that left the buffer unsent because it was full, by kind. */
export interface Drops {
  metrics: number
  logs: number
}

/** A first-in first-out ring of at most `capacity` records; `isMetric` tells a dropped record's kind. */
export class RecordBuffer<A> {
  private readonly items: Array<A | undefined>
  private head = 0
  private count = 0
  /** The records dropped since the counts were last taken. */
  readonly dropped: Drops = { metrics: 0, logs: 0 }

  constructor(
    readonly capacity: number,
    private readonly isMetric: (record: A) => boolean
  ) {
    this.items = new Array<A | undefined>(Math.max(1, Math.floor(capacity)))
  }

  /** How many records wait. */
  get length(): number {
    return this.count
  }

  /** Adds a record at the end, dropping (and counting) the oldest when the buffer is full. */
  push(record: A): void {
    const items = this.items
    const size = items.length
    if (this.count === size) {
      const oldest = items[this.head] as A
      if (this.isMetric(oldest)) this.dropped.metrics++
      else this.dropped.logs++
      items[this.head] = record
      this.head = this.head + 1 === size ? 0 : this.head + 1
      return
    }
    const at = this.head + this.count
    items[at >= size ? at - size : at] = record
    this.count++
  }

  /** The oldest record, left in place; undefined when none waits. */
  peek(): A | undefined {
    return this.count === 0 ? undefined : this.items[this.head]
  }

  /** Removes and answers the oldest record; undefined when none waits. */
  shift(): A | undefined {
    if (this.count === 0) return undefined
    const record = this.items[this.head]
    this.items[this.head] = undefined
    this.head = this.head + 1 === this.items.length ? 0 : this.head + 1
    this.count--
    return record
  }

  /** Empties the buffer (its drop counts stay). */
  clear(): void {
    this.items.fill(undefined)
    this.head = 0
    this.count = 0
  }

  /** The drop counts so far, and zero them. */
  takeDrops(): Drops {
    const taken = { metrics: this.dropped.metrics, logs: this.dropped.logs }
    this.dropped.metrics = 0
    this.dropped.logs = 0
    return taken
  }

  /** Counts again drops that were taken but not told (their batch was refused). */
  restoreDrops(drops: Drops): void {
    this.dropped.metrics += drops.metrics
    this.dropped.logs += drops.logs
  }
}
