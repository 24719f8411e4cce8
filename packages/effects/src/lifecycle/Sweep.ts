// The sweeper: deletes runtime copies that dispatch made (they carry its job-id label) and that no TrainJob
// owns any more, once they are older than a grace period that no Start in progress can outlast. Everything
// else Start and Stop leave is removed by Stop; the sweeper is for what they could not reach (a copy whose
// create landed after its Start gave up, a process killed between its copy and its TrainJob).
import { Effect } from "effect"
import { labelKeys, PROBE_JOB_ID, type BackendConfig } from "@dispatch/render"
import type { Backend } from "../Backend.ts"
import { Cluster } from "../Cluster.ts"
import { getIfExists } from "../ExistingObjects.ts"
import type { KubeResource } from "../KubeObjects.ts"
import { TrainJobs, TrainingRuntimes } from "../ResourceKind.ts"
import { readFailure } from "../StartFailure.ts"
import { requireAccess } from "./Access.ts"
import type { LifecycleError } from "./LifecycleErrors.ts"

/** How the sweeper decides a copy is left over. */
export interface SweepOptions {
  /** Least age, by the cluster's clock, of a copy the sweeper deletes; raised to `sweepGraceFloorMs(config)`. */
  readonly graceMs: number
  /** JobIDs whose copies are kept whatever their age (the service's jobs still in progress, whose next attempt
   * reuses the copy). */
  readonly keep?: (job: string) => boolean
}

/** One copy the sweeper deleted. */
export interface SweptCopy {
  readonly namespace: string
  readonly name: string
  readonly uid: string
  /** The JobID on its label. */
  readonly job: string
  /** Its age by the cluster's clock when it was deleted, in ms. */
  readonly ageMs: number
}

/** What one sweep of a namespace did. */
export interface SweepResult {
  readonly deleted: ReadonlyArray<SweptCopy>
  /** Copies past the grace whose deletion failed or could not be decided, one reason each; tried again next sweep. */
  readonly failed: ReadonlyArray<string>
}

/**
 * The least grace the sweeper uses. A copy lands at most `timeouts.call` after Start's step 5 sends it, or, if
 * that create went unanswered, up to `timeouts.callBound` after; step 6's TrainJob create then lands within
 * another `timeouts.callBound`, and from then on the TrainJob of the copy's name exists and keeps it. The
 * Workload wait (`timeouts.workload`) is added so that a Start slowed by retries inside its steps is covered
 * too: `2 × timeouts.callBound + timeouts.workload` (12 min with the default timeouts).
 */
export const sweepGraceFloorMs = (config: BackendConfig): number => 2 * config.timeouts.callBoundMs + config.timeouts.workloadMs

/** The grace a sweep with these options uses: the one asked for, at least the floor. */
export const effectiveGraceMs = (config: BackendConfig, graceMs: number): number => Math.max(graceMs, sweepGraceFloorMs(config))

/** A copy's age in ms by the cluster's clock; undefined when its creationTimestamp is missing or unreadable. */
export const ageOf = (copy: KubeResource, nowMs: number): number | undefined => {
  const stamp = copy.metadata["creationTimestamp"]
  const created = typeof stamp === "string" ? Date.parse(stamp) : Number.NaN
  return Number.isNaN(created) ? undefined : nowMs - created
}

/** Whether an ownerReference is to the TrainJob of the copy's own name: the only owner dispatch gives a copy. */
const ownedByItsTrainJob = (copy: KubeResource) => (o: { readonly kind: string; readonly name: string }) =>
  o.kind === TrainJobs.kind && o.name === copy.metadata.name

/**
 * The listed copies the sweeper may delete, if no TrainJob of their name exists: dispatch's (its job-id label),
 * not the probe's (the Factory removes its own), not being deleted, owned by nothing but the TrainJob of their
 * name, not kept, and at least `graceMs` old. A copy without a readable creationTimestamp is never old enough.
 */
export const sweepCandidates = (
  config: BackendConfig,
  copies: ReadonlyArray<KubeResource>,
  nowMs: number,
  graceMs: number,
  keep?: (job: string) => boolean
): ReadonlyArray<KubeResource> => {
  const jobLabel = labelKeys(config).jobId
  return copies.filter((copy) => {
    const job = copy.metadata.labels?.[jobLabel]
    if (job === undefined || job === PROBE_JOB_ID || keep?.(job) === true) return false
    if (copy.metadata.deletionTimestamp !== undefined || copy.metadata.uid === undefined) return false
    if (!(copy.metadata.ownerReferences ?? []).every(ownedByItsTrainJob(copy))) return false
    // An age that cannot be read is never old enough.
    return (ageOf(copy, nowMs) ?? Number.NEGATIVE_INFINITY) >= graceMs
  })
}

/** How one candidate ended: deleted, kept (its TrainJob exists, it changed, it is gone already), or failed. */
type Outcome = { readonly kind: "deleted"; readonly copy: SweptCopy } | { readonly kind: "kept" } | { readonly kind: "failed"; readonly reason: string }

const sweepOne = (config: BackendConfig, copy: KubeResource, nowMs: number): Effect.Effect<Outcome, never, Cluster> =>
  Effect.gen(function* () {
    const cluster = yield* Cluster
    const name = copy.metadata.name
    // Candidates all have a UID (sweepCandidates keeps no other).
    const uid = String(copy.metadata.uid)
    const where = `${config.namespace}/${name}`
    // A TrainJob of the copy's name, whoever made it, may be a Start's that has not owned the copy yet.
    const trainJob = yield* Effect.result(getIfExists(TrainJobs, { namespace: config.namespace, name }))
    if (trainJob._tag === "Failure") return { kind: "failed", reason: `TrainingRuntime ${where}: its TrainJob could not be read: ${trainJob.failure.reasons.join("; ")}` } as const
    if (trainJob.success !== undefined) return { kind: "kept" } as const
    // The UID precondition keeps a copy re-created meanwhile (a new Start of the same job) from being taken.
    const deleted = yield* Effect.result(cluster.delete(TrainingRuntimes, { namespace: config.namespace, name }, { propagation: "Background", preconditions: { uid } }))
    if (deleted._tag === "Success") {
      return { kind: "deleted", copy: { namespace: config.namespace, name, uid, job: copy.metadata.labels?.[labelKeys(config).jobId] ?? "", ageMs: ageOf(copy, nowMs) ?? 0 } } as const
    }
    const error = deleted.failure
    if (error.reason === "NotFound" || error.reason === "Conflict") return { kind: "kept" } as const
    return { kind: "failed", reason: `TrainingRuntime ${where}: delete failed (${error.reason}): ${error.reasons.join("; ")}` } as const
  })

/**
 * One sweep of the backend's namespace: lists dispatch's runtime copies (one labelled list), and deletes each
 * that `sweepCandidates` picks and whose TrainJob does not exist, with a UID precondition. A failed list fails
 * the sweep (ErrUnreachable, or ErrUnsupported when forbidden); a failed delete or read is reported in
 * `failed` and left for the next sweep. Needs write access to the backend.
 */
export const sweep = (backend: Backend, options: SweepOptions): Effect.Effect<SweepResult, LifecycleError, Cluster> =>
  Effect.gen(function* () {
    yield* requireAccess(backend, "write")
    const config = backend.config
    const cluster = yield* Cluster
    const copies = yield* Effect.mapError(cluster.list(TrainingRuntimes, config.namespace, labelKeys(config).jobId), readFailure)
    const now = yield* cluster.now
    const candidates = sweepCandidates(config, copies, now, effectiveGraceMs(config, options.graceMs), options.keep)
    const outcomes = yield* Effect.forEach(candidates, (copy) => sweepOne(config, copy, now))
    return {
      deleted: outcomes.flatMap((o) => (o.kind === "deleted" ? [o.copy] : [])),
      failed: outcomes.flatMap((o) => (o.kind === "failed" ? [o.reason] : []))
    }
  }).pipe(Effect.withSpan("dispatch.sweep", { attributes: { "dispatch.namespace": backend.config.namespace } }))
