import { Schema } from "effect"
import { ResourceId } from "./ResourceId.ts"

/** A job's artifact input on the wire: which artifact, and which of its snapshots to load. */
export const ArtifactRef = Schema.Struct({ id: ResourceId, snapshotId: ResourceId })
/** A reference to one snapshot of one artifact. */
export type ArtifactRef = typeof ArtifactRef.Type

/** An artifact a job produced: its type (what loading it yields) and the snapshots it has. */
export const Artifact = Schema.Struct({
  id: ResourceId,
  artifactType: Schema.String,
  snapshots: Schema.Array(ResourceId),
  job: Schema.optionalKey(ResourceId)
})
/** An artifact a job produced. */
export type Artifact = typeof Artifact.Type
