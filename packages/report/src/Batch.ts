// The next batch off the buffer: as many of the oldest records as fit in its record and byte limits (always at
// least one, so a record never blocks the buffer), with the drops counted since the last batch that landed.
import type { Drops, RecordBuffer } from "./RecordBuffer.ts"
import { encodeRecord, type BufferedRecord } from "./WireRecord.ts"

/** A batch's limits: records and bytes of body. */
export interface BatchLimits {
  readonly records: number
  readonly bytes: number
}

/** One batch: its body, how many metrics and log records it holds, the drops it tells, and whether it was cut at
 * its byte limit (so a byte-full batch at least waits). */
export interface Batch {
  readonly body: string
  readonly metrics: number
  readonly logs: number
  readonly dropped: Drops
  readonly cutByBytes: boolean
}

// The body's own text around its records: braces, the lists' names, the drop counts.
const envelopeBytes = 64

/** Takes the next batch off `buffer`; undefined when there are neither records nor drops to tell. */
export const takeBatch = (buffer: RecordBuffer<BufferedRecord>, limits: BatchLimits): Batch | undefined => {
  if (buffer.length === 0 && buffer.dropped.metrics + buffer.dropped.logs === 0) return undefined
  const metrics: Array<string> = []
  const logs: Array<string> = []
  let size = envelopeBytes
  let cutByBytes = false
  for (let record = buffer.peek(); record !== undefined && metrics.length + logs.length < limits.records; record = buffer.peek()) {
    const text = encodeRecord(record)
    size += Buffer.byteLength(text) + 1
    if (size > limits.bytes && metrics.length + logs.length > 0) {
      cutByBytes = true
      break
    }
    buffer.shift()
    ;(record.kind === "metric" ? metrics : logs).push(text)
  }
  const dropped = buffer.takeDrops()
  return {
    body: `{"metrics":[${metrics.join(",")}],"logs":[${logs.join(",")}],"dropped":{"metrics":${dropped.metrics},"logs":${dropped.logs}}}`,
    metrics: metrics.length,
    logs: logs.length,
    dropped,
    cutByBytes
  }
}
