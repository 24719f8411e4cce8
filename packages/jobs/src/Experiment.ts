import { Schema } from "effect"
import { ResourceId } from "./ResourceId.ts"
import { Description } from "./Text.ts"

/** An experiment: the namespace jobs are created in, and the entrypoints registered to it. */
export const Experiment = Schema.Struct({
  id: ResourceId,
  name: Schema.String,
  description: Schema.optionalKey(Description),
  entrypoints: Schema.Array(ResourceId)
})
/** An experiment. */
export type Experiment = typeof Experiment.Type
