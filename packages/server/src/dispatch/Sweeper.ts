// The service's sweeper: on the dispatcher's passes, at most once per `everyMs` for each namespace its queues'
// backends name, it deletes the runtime copies dispatch made there that no TrainJob owns (see `sweep` in
// @dispatch/effects), keeping every copy of a job the service still works on, whose next attempt reuses it.
import { sweep, type Backend } from "@dispatch/effects"
import { Effect, Metric, Result } from "effect"
import type { SqlClient } from "effect/sql"
import { backendOf, readGates, type DispatchContext } from "./DispatchContext.ts"
import { clusterRemovals } from "../store/ClusterRemovals.ts"
import { dispatchLeases } from "../store/DispatchLeases.ts"

/** Runtime copies the sweeper deleted (dispatch's, owned by no TrainJob, past the grace), by namespace. */
export const sweeperDeleted = Metric.counter("dispatch_sweeper_deleted_total", {
  description: "Runtime copies the sweeper deleted because no TrainJob owned them, by namespace",
  incremental: true
})

/** Sweeps that failed (the namespace could not be listed) and copies the sweeper could not delete, by namespace. */
export const sweeperFailures = Metric.counter("dispatch_sweeper_failures_total", {
  description: "Failed sweeps and copies the sweeper could not delete, by namespace",
  incremental: true
})

/** How the sweeper is paced and how old a leftover copy must be. */
export interface SweeperSettings {
  /** Least age of a copy it deletes, by the cluster's clock (raised to the backend's floor, see `sweepGraceFloorMs`). */
  readonly graceMs: number
  /** Least time between two sweeps of one namespace, in service-clock ms. */
  readonly everyMs: number
}

/** What one sweeper pass did: copies deleted, and one line per failure (a namespace that could not be listed, a
 * copy that could not be deleted). */
export interface SweeperReport {
  readonly deleted: number
  readonly failures: ReadonlyArray<string>
}

/** The JobIDs of jobs the service may still start or stop: their copies are never swept. A deleted job that was
 * never put back on the cluster (pending) is not among them: nothing will reuse its copy. */
export const jobsInProgress: Effect.Effect<ReadonlySet<string>, unknown, SqlClient.SqlClient> = Effect.flatMap(clusterRemovals, (removals) => removals.jobsInProgress)

/** One backend per namespace and label domain (the first whose gate lets it write), from every stored queue. */
export const sweptBackends: Effect.Effect<ReadonlyArray<Backend>, unknown, SqlClient.SqlClient> = Effect.gen(function* () {
  const queues = yield* Effect.flatMap(dispatchLeases, (leases) => leases.queuesWithBackend)
  const gates = yield* readGates
  const chosen = new Map<string, Backend>()
  for (const queue of queues) {
    const backend = backendOf(queue.config, gates.get(queue.id))
    if (Result.isFailure(backend) || backend.success.gate.state !== "open") continue
    const where = `${backend.success.config.namespace} ${backend.success.config.labelDomain}`
    if (!chosen.has(where)) chosen.set(where, backend.success)
  }
  return [...chosen.values()]
})

/** The sweeper of one dispatcher: `run` sweeps each namespace that is due. */
export const sweeper = (context: DispatchContext, settings: SweeperSettings, log: (line: string) => void) => {
  const lastSwept = new Map<string, number>()
  const run: Effect.Effect<SweeperReport, unknown, SqlClient.SqlClient> = Effect.gen(function* () {
    const failures: Array<string> = []
    let deleted = 0
    for (const backend of yield* sweptBackends) {
      const { namespace, labelDomain } = backend.config
      const where = `${namespace} ${labelDomain}`
      const now = context.clock()
      if (now - (lastSwept.get(where) ?? Number.NEGATIVE_INFINITY) < settings.everyMs) continue
      lastSwept.set(where, now)
      // Read just before the sweep: a job that starts after this read has a new JobID, so no old copy of it exists.
      const keep = yield* jobsInProgress
      const swept = yield* context.cluster.run(sweep(backend, { graceMs: settings.graceMs, keep: (job) => keep.has(job) }))
      // Abandoned (the service is closing) is no failure: the next run sweeps again.
      const lines = swept.kind === "ok" ? swept.value.failed : swept.kind === "error" ? [`${swept.error._tag}: ${swept.error.reasons.join("; ")}`] : []
      for (const copy of swept.kind === "ok" ? swept.value.deleted : []) {
        log(`dispatch sweeper: deleted TrainingRuntime ${copy.namespace}/${copy.name} (uid ${copy.uid}) of job ${copy.job}: no TrainJob owns it, ${Math.round(copy.ageMs / 1000)} s old`)
        deleted++
      }
      for (const line of lines) {
        log(`dispatch sweeper: namespace ${namespace}: ${line}`)
        failures.push(`sweeper: namespace ${namespace}: ${line}`)
      }
      const count = swept.kind === "ok" ? swept.value.deleted.length : 0
      yield* Metric.update(Metric.withAttributes(sweeperDeleted, { namespace }), count)
      yield* Metric.update(Metric.withAttributes(sweeperFailures, { namespace }), lines.length)
    }
    return { deleted, failures }
  })
  return { run }
}
