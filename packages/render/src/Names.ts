// Every name dispatch chooses, in one place, so docs/names.md has one source to match.

/** The label domain when the config names none. */
export const DEFAULT_LABEL_DOMAIN = "dispatch.phpboyscout.uk"

/** The longest name trainJobName can return. */
export const MAX_TRAINJOB_NAME = 37

/** The TrainJob's and the runtime copy's name: `dj-<lowercase JobID>-s<N>`. */
export const trainJobName = (job: string, submission: number): string => `dj-${job.toLowerCase()}-s${submission}`

/** The job and submission a TrainJob name stands for (the inverse of trainJobName), or undefined. */
export const jobKeyOfName = (name: string): { readonly job: string; readonly submission: number } | undefined => {
  const match = /^dj-([0-7][0-9a-hjkmnp-tv-z]{25})-s(0|[1-9]\d{0,8})$/.exec(name)
  return match === null ? undefined : { job: match[1]!.toUpperCase(), submission: Number(match[2]) }
}

/** The label keys dispatch puts on both objects (and the trainer pods), for labelled lists. */
export interface LabelKeys {
  readonly jobId: string
  readonly submission: string
  readonly generation: string
}

/** The annotation keys dispatch puts on the objects. */
export interface AnnotationKeys {
  readonly comment: string
  readonly attemptToken: string
  readonly sourceRuntime: string
}

/** dispatch's label keys under a label domain. */
export const labelKeys = (config: { readonly labelDomain: string }): LabelKeys => ({
  jobId: `${config.labelDomain}/job-id`,
  submission: `${config.labelDomain}/submission`,
  generation: `${config.labelDomain}/generation`
})

/** dispatch's annotation keys under a label domain. */
export const annotationKeys = (config: { readonly labelDomain: string }): AnnotationKeys => ({
  comment: `${config.labelDomain}/comment`,
  attemptToken: `${config.labelDomain}/attempt-token`,
  sourceRuntime: `${config.labelDomain}/source-runtime`
})

/** dispatch's Kueue admission gate, which keeps a job's Workload from admission until Open removes it: `<labelDomain>/start`. */
export const admissionGateName = (config: { readonly labelDomain: string }): string => `${config.labelDomain}/start`

/** The manager of dispatch's runtime patch: `<labelDomain>/dispatch`. */
export const patchManager = (config: { readonly labelDomain: string }): string => `${config.labelDomain}/dispatch`

/** The node-selector key of the probe's patch: `<labelDomain>/probe`. */
export const probeSelectorKey = (config: { readonly labelDomain: string }): string => `${config.labelDomain}/probe`

/** The environment variables dispatch adds after the job's own, in this order. */
export const DispatchEnv = {
  jobId: "DISPATCH_JOB_ID",
  generation: "DISPATCH_GENERATION",
  submission: "DISPATCH_SUBMISSION",
  epochPrefix: "DISPATCH_K8S_EPOCH_PREFIX",
  trainJob: "DISPATCH_K8S_TRAINJOB",
  namespace: "DISPATCH_K8S_NAMESPACE",
  workDir: "DISPATCH_K8S_WORKDIR"
} as const

/** The prefix of environment keys reserved for dispatch. */
export const RESERVED_ENV_PREFIX = "DISPATCH_"

/** `G x 10^6 + N`: orders every submission of every generation of a job. */
export const epochPrefix = (generation: number, submission: number): number => generation * 1_000_000 + submission

/** The attempt token: the attempt, then the generation and submission it belongs to (`<a>.<G>.<N>`). */
export const attemptToken = (attempt: number, generation: number, submission: number): string =>
  `${attempt}.${generation}.${submission}`

/** The human-readable comment annotation; `a=<attempt>` is what tools grep for. */
export const comment = (job: string, generation: number, submission: number, attempt: number): string =>
  `dispatch job ${job} g=${generation} s=${submission} a=${attempt}`
