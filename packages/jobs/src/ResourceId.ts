import { Schema } from "effect"

/** The integer id Dioptra gives every registered resource (experiment, entrypoint, queue, job, ...). */
export const ResourceId = Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))
/** The integer id of a registered resource. */
export type ResourceId = typeof ResourceId.Type
