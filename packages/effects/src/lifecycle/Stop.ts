// Stop: deletes the TrainJob (its Workload and owned copy follow by garbage collection) and a runtime
// copy left without an owner; already gone is success. It then says which of the job's objects remain.
import { Clock, Effect, Option } from "effect"
import type { BackendConfig } from "@dispatch/render"
import type { Backend } from "../Backend.ts"
import { Cluster } from "../Cluster.ts"
import { deleteIfExists } from "../ExistingObjects.ts"
import { InFlight, inFlightKey } from "../InFlight.ts"
import { pollUntil } from "../PollUntil.ts"
import type { KubeResource } from "../KubeObjects.ts"
import { TrainJobs, TrainingRuntimes, type ResourceKind } from "../ResourceKind.ts"
import { ErrOutcomeUnknown, type ObjectRef, objectRef } from "../StartErrors.ts"
import { requireAccess } from "./Access.ts"
import { converge, type Decision } from "./Converge.ts"
import { jobObjects, type JobKey, type JobObjects } from "./JobKey.ts"
import { belongsTo, jobWorkloads, readCopy, readTrainJob, requireOwn } from "./JobReads.ts"
import type { LifecycleError } from "./LifecycleErrors.ts"

/** What Stop did: the TrainJob's reference, and which of the job's objects still exist when it returned. */
export interface StopResult {
  readonly ref: ObjectRef
  /** `TrainJob default/dj-...`, `TrainingRuntime ...`, `Workload ...`, or a check that could not be made. */
  readonly remaining: ReadonlyArray<string>
  /** True when nothing remains: the TrainJob, its copy and its Workload are all gone. */
  readonly gone: boolean
}

/** How long Stop waits for dependents to go. */
export interface StopOptions {
  /** Poll once a second up to this long for the objects to be gone (default 0: look once). */
  readonly waitMs?: number
}

const deleteDecision = (kind: ResourceKind, ownerless: boolean) => (object: KubeResource | undefined): Decision<Cluster> => {
  if (object === undefined || object.metadata.deletionTimestamp !== undefined || !ownerless) return { kind: "done" }
  return { kind: "write", write: deleteIfExists(kind, { namespace: object.metadata.namespace, name: object.metadata.name }, object.metadata.uid) }
}

const labelOf = (object: KubeResource): string => `${object.kind} ${object.metadata.namespace ?? ""}/${object.metadata.name}`

/** Which of the job's objects exist now; a read that fails is listed as unchecked rather than failing Stop. */
const remainingOf = (config: BackendConfig, objects: JobObjects, uid: string | undefined): Effect.Effect<ReadonlyArray<string>, never, Cluster> =>
  Effect.gen(function* () {
    const unchecked = (what: string) => (e: LifecycleError) => Effect.succeed([`${what}: not checked: ${e.reasons.join("; ")}`])
    const present = (read: Effect.Effect<KubeResource | undefined, LifecycleError, Cluster>, what: string) =>
      read.pipe(Effect.map((o) => (o === undefined ? [] : [labelOf(o)])), Effect.catch(unchecked(what)))
    const trainJob = yield* present(readTrainJob(objects), "TrainJob")
    const copy = yield* present(readCopy(objects), "TrainingRuntime")
    const workloads = yield* jobWorkloads(config, objects, uid).pipe(Effect.map((all) => all.map(labelOf)), Effect.catch(unchecked("Workload")))
    return [...trainJob, ...copy, ...workloads]
  })

const awaitGone = (config: BackendConfig, objects: JobObjects, uid: string | undefined, waitMs: number): Effect.Effect<ReadonlyArray<string>, never, Cluster> =>
  Effect.map(pollUntil(remainingOf(config, objects, uid), (remaining) => remaining.length === 0, waitMs), (polled) => polled.value)

const refuseInFlight = (config: BackendConfig, objects: JobObjects): Effect.Effect<void, LifecycleError, InFlight> =>
  Effect.gen(function* () {
    const inFlight = yield* InFlight
    const since = Option.getOrUndefined(yield* inFlight.lookup(inFlightKey(objects)))
    const now = yield* Clock.currentTimeMillis
    if (since === undefined || now - since >= config.timeouts.callBoundMs) return
    return yield* new ErrOutcomeUnknown({
      reasons: [`a create of the TrainJob ${objects.namespace}/${objects.name} went unanswered ${now - since} ms ago and may still land: Stop again after timeouts.callBound (${config.timeouts.callBoundMs} ms)`],
      ref: objectRef(objects)
    })
  })

/** Stop: deletes the job's TrainJob and its runtime copy when the copy has no owner (one with an owner goes
 * with it, by garbage collection). Idempotent: a job already gone is success. A passing fault on a read
 * or a delete is tried again (RetryPolicy). With no TrainJob but a create of it unanswered less than
 * timeouts.callBound ago, Stop deletes nothing and is ErrOutcomeUnknown: Stop again after callBound.
 * Returns which objects remain (after waiting up to `waitMs` for them to go). */
export const stop = (backend: Backend, key: JobKey, options: StopOptions = {}): Effect.Effect<StopResult, LifecycleError, Cluster | InFlight> =>
  Effect.gen(function* () {
    yield* requireAccess(backend, "write")
    const config = backend.config
    const objects = yield* jobObjects(config, key)
    const what = `stop ${objects.namespace}/${objects.name}`
    const first = yield* readTrainJob(objects)
    // A create that may still land would run on the copy: both stay until it no longer can.
    if (first === undefined) yield* refuseInFlight(config, objects)
    const uid = first?.metadata.uid
    const ref = objectRef(objects, uid)
    const ownTrainJob = Effect.flatMap(readTrainJob(objects), (o) => (o === undefined ? Effect.succeed(undefined) : requireOwn(config, objects, o)))
    yield* converge({ what, ref, read: ownTrainJob, decide: deleteDecision(TrainJobs, true), waitMs: 0 })
    // A copy of another job (wrong labels) is left alone; one with an owner goes with its owner.
    const ownCopy = Effect.map(readCopy(objects), (o) => (o !== undefined && belongsTo(config, objects, o) ? o : undefined))
    yield* converge({
      what,
      ref,
      read: ownCopy,
      decide: (copy) => deleteDecision(TrainingRuntimes, (copy?.metadata.ownerReferences ?? []).length === 0)(copy),
      waitMs: 0
    })
    const remaining = yield* awaitGone(config, objects, uid, options.waitMs ?? 0)
    return { ref, remaining, gone: remaining.length === 0 }
  }).pipe(Effect.withSpan("dispatch.stop", { attributes: { "dispatch.job": key.job, "dispatch.submission": key.submission } }))
