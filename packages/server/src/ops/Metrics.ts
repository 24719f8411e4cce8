// What the service has done, as Prometheus metrics. The HTTP metrics are effect Metrics exported with
// effect/observability's Prometheus format; the job, dispatch and gate figures are read from the database at each
// scrape, so every process reports the same truth.
import { Effect, Metric } from "effect"
import { PrometheusMetrics } from "effect/observability"
import type { SqlClient } from "effect/sql"
import { serviceFigures } from "../store/ServiceFigures.ts"

/** HTTP requests answered, by route template and status. */
export const httpRequests = Metric.counter("dispatch_http_requests_total", { description: "HTTP requests answered, by route and status", incremental: true })

/** How long requests took to answer, in seconds, by route. */
export const httpDuration = Metric.histogram("dispatch_http_request_duration_seconds", {
  description: "Time to answer an HTTP request, by route",
  boundaries: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
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
export const storedMetrics: Effect.Effect<string, unknown, SqlClient.SqlClient> = Effect.gen(function* () {
  const { jobsByStatus: jobs, attempts, lastErrors: errors, removed, gates } = yield* Effect.flatMap(serviceFigures, (figures) => figures.figures)
  return [
    family("dispatch_jobs", "Jobs by status (deleted jobs not counted)", "gauge", jobs.map((r) => [{ status: r.status }, Number(r.n)] as const)),
    family("dispatch_dispatch_attempts_total", "Attempts to put jobs on a cluster, over every job", "counter", [[{}, attempts]]),
    family("dispatch_jobs_by_last_error", "Jobs whose last dispatch attempt failed, by the typed error's kind", "gauge", errors.map((r) => [{ kind: r.kind ?? "unknown" }, Number(r.n)] as const)),
    family("dispatch_retention_removed_total", "Ended jobs past the retention whose TrainJob and runtime copy are gone from the cluster (deleted by retention, or found gone)", "counter", [[{}, removed]]),
    family("dispatch_queue_gate", "Each queue's gate: 1 for the state it is in", "gauge", gates.map((r) => [{ queue: String(r.queue), name: r.name, state: r.state }, 1] as const))
  ].join("\n")
})

/** The whole `/metrics` page: effect's registry in Prometheus text, then the stored figures. */
export const metricsText = Effect.gen(function* () {
  const registry = yield* PrometheusMetrics.format()
  const stored = yield* storedMetrics
  return `${registry.trimEnd()}\n${stored}\n`
})
