import { Result, Schema } from "effect"
import type { AcceptedJob } from "./CreateJob.ts"
import type { TaskGraph } from "./TaskGraph.ts"

/** What a job's container is told: its coerced values, artifact inputs, swaps and the graph rendered without swaps. */
export interface JobDocument extends Omit<AcceptedJob, "description" | "timeout"> {
  readonly taskGraph: TaskGraph
}

/** The document a job's container receives, given the graph rendered with the job's swaps. */
export const jobDocument = (job: Omit<AcceptedJob, "description" | "timeout">, taskGraph: TaskGraph): JobDocument => ({
  experiment: job.experiment,
  entrypoint: job.entrypoint,
  entrypointSnapshot: job.entrypointSnapshot,
  queue: job.queue,
  values: job.values,
  artifactValues: job.artifactValues,
  swaps: job.swaps,
  taskGraph,
  timeoutSeconds: job.timeoutSeconds
})

/** The env variable holding how many chunks the document was split into. */
export const documentChunksKey = "DIOPTRA_JOB_DOCUMENT_CHUNKS"
/** The prefix of the env variables holding the document's chunks, numbered from 0. */
export const documentChunkPrefix = "DIOPTRA_JOB_DOCUMENT_"

// Linux refuses to exec with any single environment string over 128 KiB (MAX_ARG_STRLEN), so one variable
// cannot carry a large graph; chunks stay well under it. Ten chunks keep the TrainJob far inside the API
// server's 1.5 MiB request limit and the variable count far inside render's 121.
/** The most UTF-8 bytes one env variable of the document holds. */
export const documentChunkBytes = 100_000
/** The most chunks a document may take. */
export const maxDocumentChunks = 10
// A cut never splits a UTF-8 sequence, so it may move back up to three bytes; every chunk but the last holds
// at least documentChunkBytes - 3, and a document this size always fits in maxDocumentChunks.
/** The largest document, in UTF-8 bytes of its JSON, that a job can carry. */
export const maxDocumentBytes = (documentChunkBytes - 3) * maxDocumentChunks

/** The job's document (its values and rendered graph) is too large to hand to a container. */
export class DocumentTooLarge extends Schema.TaggedError<DocumentTooLarge>()("DocumentTooLarge", {
  bytes: Schema.Number,
  limit: Schema.Number
}) {
  override get message() {
    return `the job's values and rendered task graph take ${this.bytes} bytes as JSON, more than the ${this.limit} a container can be given`
  }
  get status() {
    return 400 as const
  }
}

const isContinuationByte = (byte: number): boolean => (byte & 0b1100_0000) === 0b1000_0000

// Cuts never fall inside a UTF-8 sequence, so every chunk is valid text on its own.
const chunksOf = (bytes: Uint8Array): Array<string> => {
  const decoder = new TextDecoder()
  const chunks: Array<string> = []
  let start = 0
  while (start < bytes.length) {
    let end = Math.min(start + documentChunkBytes, bytes.length)
    while (end < bytes.length && isContinuationByte(bytes[end] ?? 0)) end--
    chunks.push(decoder.decode(bytes.subarray(start, end)))
    start = end
  }
  return chunks
}

/** The env variables that carry a document: its JSON split into numbered chunks, plus their count. */
export const documentEnv = (document: JobDocument): Result.Result<Record<string, string>, DocumentTooLarge> => {
  const bytes = new TextEncoder().encode(JSON.stringify(document))
  if (bytes.length > maxDocumentBytes) return Result.fail(new DocumentTooLarge({ bytes: bytes.length, limit: maxDocumentBytes }))
  const chunks = chunksOf(bytes)
  return Result.succeed(
    Object.fromEntries([[documentChunksKey, String(chunks.length)], ...chunks.map((chunk, i) => [`${documentChunkPrefix}${i}`, chunk])])
  )
}

/** A container's environment does not hold a whole, parseable job document. */
export class UnreadableDocument extends Schema.TaggedError<UnreadableDocument>()("UnreadableDocument", {
  reason: Schema.String
}) {
  override get message() {
    return `the job document in the environment cannot be read: ${this.reason}`
  }
  get status() {
    return 400 as const
  }
}

/** Reassembles the document from a container's environment: what the code inside the container runs. */
export const documentFromEnv = (env: Readonly<Record<string, string | undefined>>): Result.Result<Schema.Json, UnreadableDocument> => {
  const count = Number(env[documentChunksKey])
  if (!Number.isInteger(count) || count < 1 || count > maxDocumentChunks) {
    return Result.fail(new UnreadableDocument({ reason: `${documentChunksKey} is not a count from 1 to ${maxDocumentChunks}` }))
  }
  const chunks = Array.from({ length: count }, (_, i) => env[`${documentChunkPrefix}${i}`])
  const missing = chunks.findIndex((chunk) => chunk === undefined)
  if (missing >= 0) return Result.fail(new UnreadableDocument({ reason: `${documentChunkPrefix}${missing} is missing` }))
  try {
    return Result.succeed(JSON.parse(chunks.join("")) as Schema.Json)
  } catch {
    return Result.fail(new UnreadableDocument({ reason: "the chunks do not join into JSON" }))
  }
}
