import { Config, decodeConfig, RuntimeRef, runtimeLabel, sameRuntime } from "@dispatch/render"
import { Result, Schema } from "effect"
import { Command, ImageRef } from "./Entrypoint.ts"
import { ResourceId } from "./ResourceId.ts"
import { Description } from "./Text.ts"

/** The dispatch backend behind a queue: its configuration, the runtime its jobs use, and job defaults. */
export const QueueBackend = Schema.Struct({
  /** The backend's configuration, handed to render when a job on this queue starts. */
  config: Config,
  /** The Trainer runtime every job on this queue runs on; must be one of `config.runtimes`. */
  runtime: RuntimeRef,
  /** The image a job runs in when its entrypoint names none. */
  image: Schema.optionalKey(ImageRef),
  /** The command a job runs when its entrypoint names none (an entrypoint made by a stock Dioptra client). */
  command: Schema.optionalKey(Command),
  /** Nodes per job; 1 when absent. */
  nodes: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))),
  /** GPUs per node; none when absent. */
  gpusPerNode: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)))
}).check(
  // A queue whose backend render would refuse could never start a job, so it is refused when registered.
  Schema.makeFilter((backend) => {
    const config = decodeConfig(backend.config)
    const reasons = Result.isFailure(config) ? [...config.failure.reasons] : []
    if (!backend.config.runtimes.some((r) => sameRuntime(r, backend.runtime))) {
      reasons.push(`runtime ${runtimeLabel(backend.runtime)} is not one of the backend's configured runtimes`)
    }
    return reasons
  })
)
/** The dispatch backend behind a queue. */
export type QueueBackend = typeof QueueBackend.Type

/** A queue: where jobs are sent; in dispatch, a queue is a dispatch backend, which a queue registered by a stock
 * Dioptra client lacks until one is given. */
export const Queue = Schema.Struct({
  id: ResourceId,
  name: Schema.String,
  description: Schema.optionalKey(Description),
  backend: Schema.optionalKey(QueueBackend)
})
/** A queue. */
export type Queue = typeof Queue.Type
