import { Schema } from "effect"

// Shapes only: ranges, limits and cross-field rules are checked later so that every problem is reported
// together with a reason that names its field, instead of stopping at the first decode failure.

/** A runtime named by kind and name, as in `kubeflow/RuntimeRef` and the configured runtime list. */
export const RuntimeRef = Schema.Struct({
  kind: Schema.Literals(["TrainingRuntime", "ClusterTrainingRuntime"]),
  name: Schema.String
})
/** A runtime named by kind and name. */
export type RuntimeRef = typeof RuntimeRef.Type

/** A duration: seconds as a number (fractions allowed) or a Go-style duration string such as `"1h30m"`. */
export const Duration = Schema.Union([Schema.Finite, Schema.String])
/** A duration as it arrives on the wire. */
export type Duration = typeof Duration.Type

/** go/dispatch's JobSpec on the wire. */
export const JobSpec = Schema.Struct({
  name: Schema.optionalKey(Schema.String),
  command: Schema.Array(Schema.String),
  env: Schema.Record(Schema.String, Schema.String),
  workDir: Schema.optionalKey(Schema.String),
  nodes: Schema.Int,
  gpusPerNode: Schema.optionalKey(Schema.Int),
  procsPerNode: Schema.optionalKey(Schema.Int),
  timeLimit: Schema.optionalKey(Duration),
  checkpoint: Schema.optionalKey(Schema.String),
  recovery: Schema.optionalKey(Schema.Unknown),
  extensions: Schema.Record(Schema.String, Schema.Unknown)
})
/** go/dispatch's JobSpec. */
export type JobSpec = typeof JobSpec.Type

/** One Start of one submission of one job. */
export const StartRequest = Schema.Struct({
  job: Schema.String,
  generation: Schema.Int,
  submission: Schema.Int,
  attempt: Schema.Int,
  spec: JobSpec,
  native: Schema.optionalKey(Schema.Unknown)
})
/** One Start of one submission of one job. */
export type StartRequest = typeof StartRequest.Type

/** The `dispatch/Image` extension. */
export const ImageExtension = Schema.Struct({ ref: Schema.String })

/** Kueue settings of a backend in Kueue mode. */
export const KueueConfig = Schema.Struct({ queue: Schema.String, admissionCheck: Schema.String })

/** How long dispatch waits: one API call, the Kueue Workload, and the InFlight window of Find. */
export const Timeouts = Schema.Struct({
  call: Schema.optionalKey(Duration),
  workload: Schema.optionalKey(Duration),
  callBound: Schema.optionalKey(Duration)
})

/** A backend's configuration on the wire. */
export const Config = Schema.Struct({
  namespace: Schema.String,
  mode: Schema.Literals(["plain", "kueue"]),
  runtimes: Schema.Array(RuntimeRef),
  gpuResource: Schema.optionalKey(Schema.String),
  probeRuntime: Schema.optionalKey(RuntimeRef),
  kueue: Schema.optionalKey(KueueConfig),
  timeouts: Schema.optionalKey(Timeouts),
  labelDomain: Schema.optionalKey(Schema.String)
})
/** A backend's configuration. */
export type Config = typeof Config.Type
