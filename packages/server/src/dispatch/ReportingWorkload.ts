import { jobIdKey } from "@dispatch/jobs"
import type { KubeObject, SystemClient } from "@dispatch/sim"
import { reportTokenKey, serviceUrlKey } from "./ReportToken.ts"

/** One metric a simulated workload posts. */
export interface PostedMetric {
  readonly name: string
  readonly step: number
  readonly value: number
}

/** What a simulated workload posts once its TrainJob runs. */
export interface ReportingWorkloadOptions {
  /** The HTTP client (global fetch when absent). */
  readonly fetch?: typeof fetch
  /** INFO log lines, posted in one request. */
  readonly logs?: ReadonlyArray<string>
  /** Metrics, one request each, in order. */
  readonly metrics?: ReadonlyArray<PostedMetric>
}

/** A simulated workload: the simulator's Trainer calls `onRun` while a TrainJob runs. */
export interface ReportingWorkload {
  /** For `controllers.trainer.onRun`: on a job's first running step, posts its logs and metrics to the service. */
  readonly onRun: (job: KubeObject, system: SystemClient) => void
  /** Resolves when every post started so far has been answered (or failed). */
  readonly settled: () => Promise<void>
  /** Posts answered with a 2xx, and every other answer or failure, as `<status> <path>` lines. */
  readonly answers: () => ReadonlyArray<string>
}

const defaultLogs = ["workload started", "loaded the dataset", "training"]
const defaultMetrics: ReadonlyArray<PostedMetric> = [
  { name: "loss", step: 0, value: 2.3 },
  { name: "loss", step: 1, value: 1.1 },
  { name: "accuracy", step: 1, value: 0.62 }
]

const envOf = (job: KubeObject): ReadonlyMap<string, string> => {
  const spec = job["spec"] as { trainer?: { env?: ReadonlyArray<{ name?: unknown; value?: unknown }> } } | undefined
  return new Map((spec?.trainer?.env ?? []).flatMap((e) => (typeof e.name === "string" && typeof e.value === "string" ? [[e.name, e.value] as const] : [])))
}

/** A workload that reports back as docs/jobs.md says a container does: it reads the service URL, its job id and
 * its token from its env and posts a few log lines and metrics, once per TrainJob. */
export const reportingWorkload = (options: ReportingWorkloadOptions = {}): ReportingWorkload => {
  const send = options.fetch ?? fetch
  const seen = new Set<string>()
  const pending = new Set<Promise<void>>()
  const answers: Array<string> = []
  const post = (base: string, token: string, path: string, body: unknown) => {
    const done = send(`${base}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body)
    }).then(
      async (response) => {
        await response.text()
        answers.push(`${response.status} ${path}`)
      },
      (cause: unknown) => void answers.push(`failed ${path}: ${cause instanceof Error ? cause.message : String(cause)}`)
    )
    return done
  }
  const onRun = (job: KubeObject): void => {
    const metadata = job["metadata"] as { uid?: unknown; name?: unknown } | undefined
    const uid = typeof metadata?.uid === "string" ? metadata.uid : String(metadata?.name)
    if (seen.has(uid)) return
    seen.add(uid)
    const env = envOf(job)
    const base = env.get(serviceUrlKey)
    const token = env.get(reportTokenKey)
    const id = env.get(jobIdKey)
    if (base === undefined || token === undefined || id === undefined) return
    // In order, one after another, as a real workload's logger would send them.
    const run = (async () => {
      await post(base, token, `/jobs/${id}/log`, { data: (options.logs ?? defaultLogs).map((message) => ({ severity: "INFO", loggerName: "workload", message })) })
      for (const metric of options.metrics ?? defaultMetrics) await post(base, token, `/jobs/${id}/metrics`, metric)
    })()
    pending.add(run)
    void run.finally(() => pending.delete(run))
  }
  return {
    onRun,
    settled: async () => {
      await Promise.all([...pending])
    },
    answers: () => [...answers]
  }
}
