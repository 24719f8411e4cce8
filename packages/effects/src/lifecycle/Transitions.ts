// Open, Hold and Release. Plain mode writes spec.suspend on the TrainJob; Kueue mode never does (Kueue
// owns it there) and instead removes dispatch's admission gate from the Workload (Open) and moves
// dispatch's admission check (Hold: Retry, which evicts, then Pending; Release and Open: Ready).
import { admissionGatedBy, isConditionTrue, trainJobState, valueAt } from "@dispatch/kube"
import { Clock, Effect } from "effect"
import { admissionGateName, type BackendConfig } from "@dispatch/render"
import type { Backend } from "../Backend.ts"
import { Cluster } from "../Cluster.ts"
import type { KubeResource } from "../KubeObjects.ts"
import { TrainJobs, Workloads } from "../ResourceKind.ts"
import { ErrRejected, type ObjectRef, objectRef } from "../StartErrors.ts"
import { requireAccess, type Access } from "./Access.ts"
import {
  checkEntries,
  checkEntry,
  HOLD_MESSAGE,
  READY_MESSAGE,
  RETRY_MESSAGE,
  rfc3339,
  withCheckState,
  type CheckState
} from "./AdmissionChecks.ts"
import { converge, type Decision } from "./Converge.ts"
import { jobObjects, type JobKey, type JobObjects } from "./JobKey.ts"
import { readTrainJob, readWorkload, requireOwn } from "./JobReads.ts"
import { admissionGatesOf, isFinished } from "./JobState.ts"
import type { LifecycleError } from "./LifecycleErrors.ts"

/** The three transitions. */
export type Transition = "open" | "hold" | "release"

const accessOf: Readonly<Record<Transition, Access>> = { open: "launch", hold: "write", release: "launch" }

const keyOf = (object: KubeResource) => ({ namespace: object.metadata.namespace, name: object.metadata.name })

const rvOf = (object: KubeResource) => (object.metadata.resourceVersion === undefined ? {} : { resourceVersion: object.metadata.resourceVersion })

/** The job's TrainJob, refused when it does not exist, is not dispatch's or is being deleted. A finished
 * one is read: a transition whose state already holds succeeds on it (see `unlessFinished`). */
const readLiveTrainJob = (config: BackendConfig, objects: JobObjects, transition: Transition): Effect.Effect<KubeResource, LifecycleError, Cluster> =>
  Effect.gen(function* () {
    const refuse = (why: string, uid?: string) => Effect.fail(new ErrRejected({ reasons: [`${transition}: ${why}`], ref: objectRef(objects, uid) }))
    const found = yield* readTrainJob(objects)
    if (found === undefined) return yield* refuse(`no TrainJob ${objects.namespace}/${objects.name} exists`)
    const job = yield* requireOwn(config, objects, found)
    const uid = job.metadata.uid
    if (job.metadata.deletionTimestamp !== undefined) return yield* refuse(`the TrainJob ${objects.namespace}/${objects.name} is being deleted`, uid)
    return job
  })

// Plain mode: spec.suspend, with the read's resourceVersion as precondition.
const plainDecision = (want: boolean) => (job: KubeResource): Decision<Cluster> => {
  if (valueAt(job, ["spec", "suspend"]) === want) return { kind: "done" }
  return { kind: "write", write: Effect.flatMap(Cluster, (c) => c.mergePatch(TrainJobs, keyOf(job), { spec: { suspend: want } }, rvOf(job))) }
}

/** A finished TrainJob may not change, but a transition whose state already holds on it is done: a
 * retried Open that had worked before the job finished succeeds again. */
const unlessFinished = <S>(trainJobOf: (state: S) => KubeResource, decide: (state: S) => Decision<Cluster>) => (state: S): Decision<Cluster> => {
  const decision = decide(state)
  const job = trainJobOf(state)
  if (decision.kind === "done" || !isFinished(trainJobState(job))) return decision
  return { kind: "refuse", reason: `the TrainJob ${job.metadata.namespace ?? ""}/${job.metadata.name} has finished` }
}

/** What a Kueue-mode transition reads: the TrainJob and its Workload. */
interface KueueView {
  readonly trainJob: KubeResource
  readonly workload: KubeResource | undefined
}

const setCheck = (workload: KubeResource, check: string, state: CheckState, message: string): Decision<Cluster> => ({
  kind: "write",
  write: Effect.gen(function* () {
    const cluster = yield* Cluster
    const stamp = rfc3339(yield* Clock.currentTimeMillis)
    const admissionChecks = withCheckState(checkEntries(workload), check, state, message, stamp)
    return yield* cluster.mergePatch(Workloads, keyOf(workload), { status: { admissionChecks } }, { status: true, ...rvOf(workload) })
  })
})

const removeAdmissionGate = (workload: KubeResource, gate: string): Decision<Cluster> => {
  const remaining = admissionGatesOf(workload).filter((g) => g !== gate)
  const patch = { metadata: { annotations: { [admissionGatedBy]: remaining.length === 0 ? null : remaining.join(",") } } }
  return { kind: "write", write: Effect.flatMap(Cluster, (c) => c.mergePatch(Workloads, keyOf(workload), patch, rvOf(workload))) }
}

const kueueDecision = (config: BackendConfig, transition: Transition) => (view: KueueView): Decision<Cluster> => {
  const workload = view.workload
  if (workload === undefined) return { kind: "wait", reason: "Kueue has not made the TrainJob's Workload" }
  const check = config.kueue?.admissionCheck ?? ""
  const entry = checkEntry(workload, check)
  const gate = admissionGateName(config)
  switch (transition) {
    case "open":
      if (admissionGatesOf(workload).includes(gate)) return removeAdmissionGate(workload, gate)
      return entry?.["state"] === "Ready" ? { kind: "done" } : setCheck(workload, check, "Ready", READY_MESSAGE)
    case "release":
      return entry?.["state"] === "Ready" ? { kind: "done" } : setCheck(workload, check, "Ready", READY_MESSAGE)
    case "hold":
      if (entry?.["state"] === "Retry") return { kind: "wait", reason: `Kueue has not acted on the Retry of ${check} yet` }
      // Only an admitted Workload needs evicting; for any other a Pending check already keeps it out.
      if (isConditionTrue(workload, "Admitted")) return setCheck(workload, check, "Retry", RETRY_MESSAGE)
      return entry?.["state"] === "Pending" && entry["message"] === HOLD_MESSAGE ? { kind: "done" } : setCheck(workload, check, "Pending", HOLD_MESSAGE)
  }
}

/** Runs one transition on one job, idempotently, verified by reading back. Returns the TrainJob's reference. */
export const transition = (backend: Backend, key: JobKey, which: Transition): Effect.Effect<ObjectRef, LifecycleError, Cluster> =>
  Effect.gen(function* () {
    yield* requireAccess(backend, accessOf[which])
    const config = backend.config
    const objects = yield* jobObjects(config, key)
    const what = `${which} ${objects.namespace}/${objects.name}`
    const ref = objectRef(objects)
    if (config.mode === "plain") {
      const job = yield* converge({ what, ref, read: readLiveTrainJob(config, objects, which), decide: unlessFinished((j: KubeResource) => j, plainDecision(which === "hold")), waitMs: 0 })
      return objectRef(objects, job.metadata.uid)
    }
    const read = Effect.gen(function* () {
      const trainJob = yield* readLiveTrainJob(config, objects, which)
      return { trainJob, workload: yield* readWorkload(config, trainJob) }
    })
    const view = yield* converge({ what, ref, read, decide: unlessFinished((v: KueueView) => v.trainJob, kueueDecision(config, which)), waitMs: config.timeouts.workloadMs })
    return objectRef(objects, view.trainJob.metadata.uid)
  }).pipe(Effect.withSpan(`dispatch.${which}`, { attributes: { "dispatch.job": key.job, "dispatch.submission": key.submission } }))

/** Open: lets the job start. Plain: spec.suspend=false. Kueue: removes dispatch's gate from the
 * Workload and sets dispatch's admission check Ready. */
export const open = (backend: Backend, key: JobKey): Effect.Effect<ObjectRef, LifecycleError, Cluster> => transition(backend, key, "open")

/** Hold: pauses the job. Plain: spec.suspend=true. Kueue: dispatch's check to Retry when the Workload is
 * admitted (Kueue evicts and requeues it), then Pending with the hold message. */
export const hold = (backend: Backend, key: JobKey): Effect.Effect<ObjectRef, LifecycleError, Cluster> => transition(backend, key, "hold")

/** Release: undoes a Hold. Plain: spec.suspend=false. Kueue: dispatch's check to Ready. */
export const release = (backend: Backend, key: JobKey): Effect.Effect<ObjectRef, LifecycleError, Cluster> => transition(backend, key, "release")
