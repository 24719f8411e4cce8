// The preflight probe: proves a backend's gates in order. Reach: every configured runtime can be read.
// Write: the probe's Start created its objects. Launch: that Start succeeded (its read-back matched and,
// in Kueue mode, its Workload appeared with dispatch's gate and the admission check). The probe is then
// stopped, whatever happened; it can never be scheduled, since its node selector matches no node.
import { Effect, Result } from "effect"
import { PROBE_JOB_ID, probeRequest, runtimeLabel, type BackendConfig, type RuntimeRef } from "@dispatch/render"
import { openBackend, type Gate } from "../Backend.ts"
import { Cluster } from "../Cluster.ts"
import { InFlight, makeInFlight } from "../InFlight.ts"
import { ClusterTrainingRuntimes, TrainJobs, TrainingRuntimes } from "../ResourceKind.ts"
import { start } from "../Start.ts"
import type { StartError } from "../StartErrors.ts"
import { emptyCreateLog, loggingCreates } from "./CreateLog.ts"
import type { JobKey } from "./JobKey.ts"
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
  Effect.gen(function* () {
    const cluster = yield* Cluster
    const read = ref.kind === "TrainingRuntime"
      ? cluster.get(TrainingRuntimes, { namespace: config.namespace, name: ref.name })
      : cluster.get(ClusterTrainingRuntimes, { name: ref.name })
    return yield* read.pipe(
      Effect.as([] as ReadonlyArray<string>),
      Effect.catchTag("ClusterError", (e) =>
        Effect.succeed(e.reason === "NotFound" ? [`runtime ${runtimeLabel(ref)} does not exist`] : [`runtime ${runtimeLabel(ref)} cannot be read`, ...e.reasons])
      )
    )
  })

/** The reach gate: every configured runtime can be read. */
export const proveReach = (config: BackendConfig): Effect.Effect<GateProof, never, Cluster> =>
  Effect.map(Effect.forEach(config.runtimes, (ref) => runtimeReadProblems(config, ref)), (all) => {
    const reasons = all.flat()
    return { proven: reasons.length === 0, reasons }
  })

/** Stops the probe, retrying a failed stop; the result lists what remains, or why it could not be removed. */
const removeProbe = (config: BackendConfig): Effect.Effect<Result.Result<StopResult, StartError>, never, Cluster> =>
  Effect.gen(function* () {
    let last: Result.Result<StopResult, StartError> | undefined
    for (let attempt = 1; attempt <= CLEANUP_ATTEMPTS; attempt++) {
      last = yield* Effect.result(stop(openBackend(config), probeKey, { waitMs: config.timeouts.workloadMs }))
      if (Result.isSuccess(last)) return last
      if (attempt < CLEANUP_ATTEMPTS) yield* Effect.sleep(1000)
    }
    return last!
  }).pipe(Effect.provideService(InFlight, makeInFlight()))

const leftoversOf = (removed: Result.Result<StopResult, StartError>): ReadonlyArray<string> =>
  Result.isSuccess(removed) ? removed.success.remaining : [`the probe could not be removed: ${removed.failure.reasons.join("; ")}`]

/** The gate decided by the first gate not proven. */
export const gateOf = (reach: GateProof, write: GateProof, launch: GateProof): Gate => {
  if (!reach.proven) return { state: "closed", reason: reach.reasons.join("; ") }
  if (!write.proven) return { state: "read-only", reason: write.reasons.join("; ") }
  if (!launch.proven) return { state: "observe-only", reason: launch.reasons.join("; ") }
  return { state: "open" }
}

/** Runs the preflight probe against the configured cluster and reports every gate. Never fails: what
 * went wrong is in the report. */
export const probe = (config: BackendConfig): Effect.Effect<ProbeReport, never, Cluster> =>
  Effect.gen(function* () {
    const reach = yield* proveReach(config)
    if (!reach.proven) return { gate: gateOf(reach, notTried("reach"), notTried("reach")), reach, write: notTried("reach"), launch: notTried("reach"), leftovers: [] }
    // An earlier probe that could not be removed would be adopted, proving nothing: remove it first.
    const earlier = yield* removeProbe(config)
    if (Result.isFailure(earlier)) {
      const write = { proven: false, reasons: [`an earlier probe could not be removed`, ...earlier.failure.reasons] }
      return { gate: gateOf(reach, write, notTried("write")), reach, write, launch: notTried("write"), leftovers: leftoversOf(earlier) }
    }
    const log = emptyCreateLog()
    const cluster = yield* Cluster
    const started = yield* Effect.result(
      start(openBackend(config), probeRequest(config)).pipe(
        Effect.provideService(Cluster, loggingCreates(cluster, log)),
        Effect.provideService(InFlight, makeInFlight())
      )
    )
    const removed = yield* removeProbe(config)
    const leftovers = leftoversOf(removed)
    const failure = Result.isFailure(started) ? started.failure : undefined
    const write: GateProof = log.created.has(TrainingRuntimes.plural) && log.created.has(TrainJobs.plural)
      ? proven
      : { proven: false, reasons: ["the probe's objects were not created", ...(failure?.reasons ?? [])] }
    // A probe that reached the cluster but then found it unanswering says so with the reach gate.
    const reachNow: GateProof = !write.proven && failure?._tag === "ErrUnreachable" && log.created.size === 0 ? { proven: false, reasons: failure.reasons } : reach
    const launch: GateProof = !write.proven ? notTried("write") : failure === undefined ? proven : { proven: false, reasons: failure.reasons }
    // Objects the probe could not remove mean writes cannot be trusted to be undone.
    const cleanWrite: GateProof = Result.isSuccess(removed) || !write.proven ? write : { proven: false, reasons: leftovers }
    return { gate: gateOf(reachNow, cleanWrite, launch), reach: reachNow, write: cleanWrite, launch, leftovers }
  }).pipe(Effect.withSpan("dispatch.probe"))
