// The preflight probe: proves a backend's gates in order. Reach: every configured runtime can be read.
// Write: the probe's Start created its objects. Launch: that Start succeeded (its read-back matched and,
// in Kueue mode, its Workload appeared with dispatch's gate and the admission check). The probe is then
// stopped, whatever happened; it can never be scheduled, since its node selector matches no node.
import { Effect, Result } from "effect"
import { PROBE_JOB_ID, probeRequest, runtimeLabel, trainJobName, type BackendConfig, type RuntimeRef } from "@dispatch/render"
import { openBackend, type Gate } from "../Backend.ts"
import { Cluster } from "../Cluster.ts"
import { getRuntimeIfExists } from "../ExistingObjects.ts"
import { InFlight, makeInFlight, type InFlightShape } from "../InFlight.ts"
import type { KubeResource } from "../KubeObjects.ts"
import { POLL_INTERVAL_MS, pollUntil } from "../PollUntil.ts"
import { TrainJobs, TrainingRuntimes } from "../ResourceKind.ts"
import { start } from "../Start.ts"
import type { StartError } from "../StartErrors.ts"
import { emptyCreateLog, loggingCreates } from "./CreateLog.ts"
import type { JobKey, JobObjects } from "./JobKey.ts"
import { readCopy, readTrainJob } from "./JobReads.ts"
import { probeCause } from "./ProbeCause.ts"
import { stop, type StopResult } from "./Stop.ts"

/** Whether one gate was proven, and every reason it was not. */
export interface GateProof {
  readonly proven: boolean
  readonly reasons: ReadonlyArray<string>
}

/** What the probe found: the resulting gate, each gate's proof, and what it could not remove. */
export interface ProbeReport {
  readonly gate: Gate
  readonly reach: GateProof
  readonly write: GateProof
  readonly launch: GateProof
  /** The probe's objects still present after it stopped them (empty when all are gone). */
  readonly leftovers: ReadonlyArray<string>
}

/** The probe's job key: the zero JobID, submission 1. */
export const probeKey: JobKey = { job: PROBE_JOB_ID, submission: 1 }

/** How many times the probe tries to remove its objects before giving up. */
export const CLEANUP_ATTEMPTS = 3

const proven: GateProof = { proven: true, reasons: [] }
const notTried = (gate: string): GateProof => ({ proven: false, reasons: [`not tried: the ${gate} gate is not proven`] })

const runtimeReadProblems = (config: BackendConfig, ref: RuntimeRef): Effect.Effect<ReadonlyArray<string>, never, Cluster> =>
  getRuntimeIfExists(config, ref).pipe(
    Effect.map((o) => (o === undefined ? [`runtime ${runtimeLabel(ref)} does not exist`] : [])),
    Effect.catch((e) => Effect.succeed([`runtime ${runtimeLabel(ref)} cannot be read`, ...e.reasons]))
  )

/** The reach gate: every configured runtime can be read. */
export const proveReach = (config: BackendConfig): Effect.Effect<GateProof, never, Cluster> =>
  Effect.map(Effect.forEach(config.runtimes, (ref) => runtimeReadProblems(config, ref)), (all) => {
    const reasons = all.flat()
    return { proven: reasons.length === 0, reasons }
  })

/** How long a probe may legitimately keep its objects: its Start's wait for the Workload plus the time
 * an unanswered create may still land. A probe object seen for longer than this is a leftover, not a probe
 * in progress: a Factory that finds one waits that long once before removing it. */
export const probeLifetimeMs = (config: BackendConfig): number => config.timeouts.workloadMs + config.timeouts.callBoundMs

const probeObjects = (config: BackendConfig): JobObjects => ({ key: probeKey, namespace: config.namespace, name: trainJobName(PROBE_JOB_ID, probeKey.submission) })

/** Whether the probe's TrainJob or copy exists; one that cannot be read counts as absent (removing it
 * decides then). */
const probeObjectsExist = (config: BackendConfig): Effect.Effect<boolean, never, Cluster> => {
  const objects = probeObjects(config)
  const exists = (read: Effect.Effect<KubeResource | undefined, StartError, Cluster>) =>
    read.pipe(Effect.map((o) => o !== undefined), Effect.catch(() => Effect.succeed(false)))
  return Effect.map(Effect.all([exists(readTrainJob(objects)), exists(readCopy(objects))]), ([job, copy]) => job || copy)
}

/** Waits while another probe may be in progress, so that two Factories at once never delete each
 * other's probe: until the probe's objects are gone, or for probeLifetimeMs from now, after which what
 * is still there is a leftover. Measured on this process's clock, not against creationTimestamp, which
 * the cluster's clock wrote. */
const awaitProbeInProgress = (config: BackendConfig): Effect.Effect<void, never, Cluster> =>
  Effect.asVoid(pollUntil(probeObjectsExist(config), (exists) => !exists, probeLifetimeMs(config)))

/** Stops the probe, retrying a failed stop; the result lists what remains, or why it could not be
 * removed. A create of this run that went unanswered may still land until timeouts.callBound has
 * passed: the removal waits that out first, sharing the run's InFlight memory, so a late probe object
 * is found and deleted rather than left behind. */
const removeProbe = (config: BackendConfig, inFlight: InFlightShape, unanswered: boolean): Effect.Effect<Result.Result<StopResult, StartError>, never, Cluster> =>
  Effect.gen(function* () {
    if (unanswered) yield* Effect.sleep(config.timeouts.callBoundMs)
    let last: Result.Result<StopResult, StartError> | undefined
    for (let attempt = 1; attempt <= CLEANUP_ATTEMPTS; attempt++) {
      last = yield* Effect.result(stop(openBackend(config), probeKey, { waitMs: config.timeouts.workloadMs }))
      if (Result.isSuccess(last)) return last
      if (attempt < CLEANUP_ATTEMPTS) yield* Effect.sleep(POLL_INTERVAL_MS)
    }
    return last!
  }).pipe(Effect.provideService(InFlight, inFlight))

const leftoversOf = (removed: Result.Result<StopResult, StartError>): ReadonlyArray<string> =>
  Result.isSuccess(removed) ? removed.success.remaining : [`the probe could not be removed: ${removed.failure.reasons.join("; ")}`]

/** The gate decided by the first gate not proven. */
export const gateOf = (reach: GateProof, write: GateProof, launch: GateProof): Gate => {
  if (!reach.proven) return { state: "closed", reason: reach.reasons.join("; ") }
  if (!write.proven) return { state: "read-only", reason: write.reasons.join("; ") }
  if (!launch.proven) return { state: "observe-only", reason: launch.reasons.join("; ") }
  return { state: "open" }
}

/** How many times a probe that found another probe's objects in its way waits for it and tries again. */
export const PROBE_ROUNDS = 3

/** One run of the probe's Start: what it proved, or that another probe's TrainJob was in the way. */
type Round = { readonly contended: true; readonly reasons: ReadonlyArray<string> } | ({ readonly contended: false } & ProbeReport)

const round = (config: BackendConfig, reach: GateProof): Effect.Effect<Round, never, Cluster> =>
  Effect.gen(function* () {
    yield* awaitProbeInProgress(config)
    // What is left now is older than any probe in progress: an earlier probe that could not be removed,
    // which would be adopted, proving nothing. Remove it first.
    const earlier = yield* removeProbe(config, makeInFlight(), false)
    if (Result.isFailure(earlier)) {
      const write = { proven: false, reasons: [`an earlier probe could not be removed`, ...earlier.failure.reasons] }
      const launch = notTried("write")
      return { contended: false, gate: gateOf(reach, write, launch), reach, write, launch, leftovers: leftoversOf(earlier) }
    }
    const log = emptyCreateLog()
    const cluster = yield* Cluster
    const inFlight = makeInFlight()
    const started = yield* Effect.result(
      start(openBackend(config), probeRequest(config)).pipe(
        Effect.provideService(Cluster, loggingCreates(cluster, log)),
        Effect.provideService(InFlight, inFlight)
      )
    )
    const failure = Result.isFailure(started) ? started.failure : undefined
    // Another probe created the TrainJob between the wait and this Start: it is that probe's to prove
    // and remove, not this one's.
    if (log.existing.has(TrainJobs.plural)) {
      return { contended: true, reasons: [`another probe's TrainJob was in the way`, ...(failure?.reasons ?? [])] }
    }
    const unanswered = [...log.maybe].filter((plural) => !log.created.has(plural))
    const removed = yield* removeProbe(config, inFlight, unanswered.length > 0)
    const leftovers = leftoversOf(removed)
    // The copy counts as written when a concurrent probe made it first: this probe's TrainJob create proves the write.
    const wrote = log.created.has(TrainJobs.plural) && (log.created.has(TrainingRuntimes.plural) || log.existing.has(TrainingRuntimes.plural))
    // Why nothing was written decides the gate: only the cluster's own 403 makes the backend read-only.
    const cause = wrote || unanswered.length > 0 ? undefined : probeCause(config, log.failed[0], failure)
    const write: GateProof = wrote ? proven : { proven: false, reasons: cause?.reasons ?? ["the probe's objects were not created", ...(failure?.reasons ?? [])] }
    // A cluster that reads but leaves a write unanswered, fails it transiently, or has no such namespace,
    // is not reached: that is the reach gate, not a permission the write gate stands for.
    const reachNow: GateProof =
      unanswered.length > 0
        ? { proven: false, reasons: [`the probe's create of ${unanswered.join(" and ")} went unanswered`, ...(failure?.reasons ?? [])] }
        : cause?.state === "closed"
          ? { proven: false, reasons: cause.reasons }
          : reach
    const launch: GateProof = !write.proven ? notTried("write") : failure === undefined ? proven : { proven: false, reasons: failure.reasons }
    // Objects the probe could not remove mean writes cannot be trusted to be undone.
    const cleanWrite: GateProof = Result.isSuccess(removed) || !write.proven ? write : { proven: false, reasons: leftovers }
    // A probe the cluster or the runtime rules refuse says nothing against the permission to write: the
    // backend may read and write but launches nothing on that runtime, which is observe-only's refusal.
    if (cause?.state === "observe-only") {
      return { contended: false, gate: { state: "observe-only", reason: cause.reasons.join("; ") }, reach: reachNow, write: cleanWrite, launch, leftovers }
    }
    return { contended: false, gate: gateOf(reachNow, cleanWrite, launch), reach: reachNow, write: cleanWrite, launch, leftovers }
  })

/** Runs the preflight probe against the configured cluster and reports every gate. Never fails: what
 * went wrong is in the report. Probes of one namespace take turns: a probe waits for one in progress
 * (PROBE_ROUNDS times at most) rather than removing it. */
export const probe = (config: BackendConfig): Effect.Effect<ProbeReport, never, Cluster> =>
  Effect.gen(function* () {
    const reach = yield* proveReach(config)
    const untried = notTried("reach")
    if (!reach.proven) return { gate: gateOf(reach, untried, untried), reach, write: untried, launch: untried, leftovers: [] }
    let reasons: ReadonlyArray<string> = []
    for (let n = 1; n <= PROBE_ROUNDS; n++) {
      const result = yield* round(config, reach)
      if (!result.contended) {
        const { contended: _, ...report } = result
        return report
      }
      reasons = result.reasons
    }
    const write: GateProof = { proven: false, reasons: [`other probes kept the probe's objects for ${PROBE_ROUNDS} rounds`, ...reasons] }
    const launch = notTried("write")
    return { gate: gateOf(reach, write, launch), reach, write, launch, leftovers: [] }
  }).pipe(Effect.withSpan("dispatch.probe"))
