// The service's operations face: whether it is ready, what it has done (Prometheus metrics) and one access-log
// line per request. The HTTP metrics are effect Metrics exported with effect/observability's Prometheus format;
// the job, dispatch and gate figures are read from the database at each scrape, so every process reports the
// same truth.
import { Effect, Metric } from "effect"
import { PrometheusMetrics } from "effect/observability"
import type { Database } from "./store/Database.ts"
import { onStore } from "./store/DatabaseBridge.ts"
import { migrations, recordedMigrations } from "./store/Migrations.ts"
import { serviceFigures } from "./store/ServiceFigures.ts"

/** Whether the dispatcher runs: `off` when the service was started without a cluster; `starting` until the
 * database it works on is open. */
export type DispatcherState = "starting" | "running" | "stopped" | "off"

/** What a service that already listens is still doing before it serves its API, in order. */
export type StartupStep = "database opening" | "migrations" | "dispatcher starting"

const startupReasons: Readonly<Record<StartupStep, string>> = {
  "database opening": "the database is opening",
  migrations: "the database's migrations are being checked and applied",
  "dispatcher starting": "the dispatcher is starting"
}

/** Why a starting service does not serve its API yet, in words. */
export const startupReason = (step: StartupStep): string => startupReasons[step]

/** What `/readyz` answers while the service starts: not ready, naming the step it is at (no query is sent, the
 * database may not be open). */
export const startingReadiness = (step: StartupStep, dispatcher: DispatcherState): Readiness => ({
  ready: false,
  database: step === "database opening" ? "opening" : "reachable",
  migrations: step === "database opening" ? "not checked yet" : step === "migrations" ? "being applied" : `all ${migrations.length} applied`,
  dispatcher,
  reasons: [startupReason(step)]
})

/** What `/readyz` checked and found; ready only when every check passed. */
export interface Readiness {
  readonly ready: boolean
  readonly database: string
  readonly migrations: string
  readonly dispatcher: DispatcherState
  /** Why the service is not ready, one reason per failed check. */
  readonly reasons: ReadonlyArray<string>
}

/** Checks the database answers, has every migration, and that the dispatcher runs when there is one. */
export const readiness = async (db: Database, dispatcher: DispatcherState): Promise<Readiness> => {
  const reasons: Array<string> = []
  let database = "reachable"
  let applied = "unknown"
  try {
    await onStore(db, serviceFigures, (figures) => figures.answers)
    const have = await recordedMigrations(db)
    const missing = migrations.filter((m) => !have.has(m.version)).map((m) => m.version)
    applied = missing.length === 0 ? `all ${migrations.length} applied` : `missing ${missing.join(", ")}`
    if (missing.length > 0) reasons.push(`migrations ${missing.join(", ")} are not applied`)
  } catch (cause) {
    database = `unreachable: ${cause instanceof Error ? cause.message : String(cause)}`
    reasons.push(`the database is ${database}`)
  }
  if (dispatcher === "stopped") reasons.push("the dispatcher has stopped")
  if (dispatcher === "starting") reasons.push(startupReason("dispatcher starting"))
  return { ready: reasons.length === 0, database, migrations: applied, dispatcher, reasons }
}

/** HTTP requests answered, by route template and status. */
export const httpRequests = Metric.counter("dispatch_http_requests_total", { description: "HTTP requests answered, by route and status", incremental: true })

/** How long requests took to answer, in seconds, by route. */
export const httpDuration = Metric.histogram("dispatch_http_request_duration_seconds", {
  description: "Time to answer an HTTP request, by route",
  boundaries: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
})

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

/** Records one answered request. */
export const recordRequest = (route: string, status: number, seconds: number) =>
  Effect.all([
    Metric.update(Metric.withAttributes(httpRequests, { route, status: String(status) }), 1),
    Metric.update(Metric.withAttributes(httpDuration, { route }), seconds)
  ])

const label = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")

const family = (name: string, help: string, type: "gauge" | "counter", samples: ReadonlyArray<readonly [Readonly<Record<string, string>>, number]>) =>
  [
    `# HELP ${name} ${help}`,
    `# TYPE ${name} ${type}`,
    ...samples.map(([labels, value]) => {
      const text = Object.entries(labels)
        .map(([k, v]) => `${k}="${label(v)}"`)
        .join(",")
      return `${name}${text === "" ? "" : `{${text}}`} ${value}`
    })
  ].join("\n")

/** The figures read from the database: jobs by status, dispatch attempts, jobs whose last dispatch error is of
 * each kind, jobs retention removed from the cluster, and each queue's gate. */
export const storedMetrics = async (db: Database): Promise<string> => {
  const { jobsByStatus: jobs, attempts, lastErrors: errors, removed, gates } = await onStore(db, serviceFigures, (figures) => figures.figures)
  return [
    family("dispatch_jobs", "Jobs by status (deleted jobs not counted)", "gauge", jobs.map((r) => [{ status: r.status }, Number(r.n)] as const)),
    family("dispatch_dispatch_attempts_total", "Attempts to put jobs on a cluster, over every job", "counter", [[{}, attempts]]),
    family("dispatch_jobs_by_last_error", "Jobs whose last dispatch attempt failed, by the typed error's kind", "gauge", errors.map((r) => [{ kind: r.kind ?? "unknown" }, Number(r.n)] as const)),
    family("dispatch_retention_removed_total", "Ended jobs past the retention whose TrainJob and runtime copy are gone from the cluster (deleted by retention, or found gone)", "counter", [[{}, removed]]),
    family("dispatch_queue_gate", "Each queue's gate: 1 for the state it is in", "gauge", gates.map((r) => [{ queue: String(r.queue), name: r.name, state: r.state }, 1] as const))
  ].join("\n")
}

/** The whole `/metrics` page: effect's registry in Prometheus text, then the stored figures. */
export const metricsText = (db: Database) =>
  Effect.gen(function* () {
    const registry = yield* PrometheusMetrics.format()
    const stored = yield* Effect.promise(() => storedMetrics(db))
    return `${registry.trimEnd()}\n${stored}\n`
  })

/** How access-log lines are written. */
export type LogFormat = "text" | "json"

/** One access-log line. */
export interface AccessEntry {
  readonly time: string
  readonly requestId: string
  readonly method: string
  readonly path: string
  readonly route: string
  readonly status: number
  readonly ms: number
}

/** An access-log line in the format asked for. */
export const accessLine = (format: LogFormat, entry: AccessEntry): string =>
  format === "json"
    ? JSON.stringify(entry)
    : `${entry.time} ${entry.requestId} ${entry.method} ${entry.path} ${entry.status} ${entry.ms.toFixed(1)}ms`

const sentRequestId = /^[A-Za-z0-9._:-]{1,128}$/

/** The request id: the client's `X-Request-Id` when it is a sane token, else a new one. */
export const requestIdOf = (header: string | undefined, fresh: () => string): string =>
  header !== undefined && sentRequestId.test(header) ? header : fresh()
