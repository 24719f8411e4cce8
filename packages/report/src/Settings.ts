// What a reporter needs from its pod's environment and its options: where to post (the job service's report URL,
// the job id, the report token), whether this rank reports, and its limits, each kept within what the service
// takes.

/** A reporter's options; each absent one has the default named on it. */
export interface ReporterOptions {
  /** The job API's base URL (default: DIOPTRA_SERVICE_URL). */
  readonly url?: string
  /** The job's id (default: DIOPTRA_JOB_ID). */
  readonly jobId?: string | number
  /** The job's report token (default: DIOPTRA_REPORT_TOKEN). */
  readonly token?: string
  /** Every rank reports, not only rank 0 (default: DISPATCH_REPORT_ALL_RANKS is 1, true or yes). */
  readonly allRanks?: boolean
  /** The most records buffered; when full the oldest are dropped (default 100,000). */
  readonly maxBuffer?: number
  /** The most records in a batch (default 1,000, at most 5,000). */
  readonly batchSize?: number
  /** The most bytes of a batch's body (default 512 KiB, at most 1 MiB less 4 KiB). */
  readonly batchBytes?: number
  /** How often what is buffered is sent, in milliseconds (default 1,000). */
  readonly intervalMs?: number
  /** How long one request may take before it counts as unanswered, in milliseconds (default 10,000). */
  readonly timeoutMs?: number
  /** The first retry's largest wait, doubled on each retry, in milliseconds (default 500). */
  readonly backoffMs?: number
  /** The largest wait before a retry, in milliseconds (default 30,000). */
  readonly maxBackoffMs?: number
  /** How long the flush at exit may take, in milliseconds (default 5,000). */
  readonly exitTimeoutMs?: number
  /** The logger name of log lines that name none (default "train"). */
  readonly loggerName?: string
  /** The environment read instead of the process's. */
  readonly env?: Readonly<Record<string, string | undefined>>
}

/** Where a reporter posts. */
export interface Target {
  readonly url: URL
  readonly token: string
}

/** A reporter's settings: its target, or why it does not report; and its limits. */
export interface Settings {
  readonly rank: number
  readonly target: Target | { readonly off: string; readonly quiet: boolean }
  readonly maxBuffer: number
  readonly batchSize: number
  readonly batchBytes: number
  readonly intervalMs: number
  readonly timeoutMs: number
  readonly backoffMs: number
  readonly maxBackoffMs: number
  readonly exitTimeoutMs: number
  readonly loggerName: string
}

/** The process's rank: RANK (torchrun's), else PET_NODE_RANK (Kubeflow Trainer's, per node), else 0. */
export const rankOf = (env: Readonly<Record<string, string | undefined>>): number => {
  for (const key of ["RANK", "PET_NODE_RANK"]) {
    const text = env[key]
    if (text !== undefined && /^\s*-?\d+\s*$/.test(text)) return Number.parseInt(text, 10)
  }
  return 0
}

const within = (value: number | undefined, fallback: number, low: number, high: number): number => {
  const chosen = value === undefined || Number.isNaN(value) ? fallback : value
  return Math.max(low, Math.min(high, chosen))
}

/** A reporter's settings from its options and environment. */
export const settingsOf = (options: ReporterOptions, processEnv: Readonly<Record<string, string | undefined>>): Settings => {
  const env = options.env ?? processEnv
  const rank = rankOf(env)
  const url = options.url ?? env["DIOPTRA_SERVICE_URL"]
  const job = options.jobId ?? env["DIOPTRA_JOB_ID"]
  const token = options.token ?? env["DIOPTRA_REPORT_TOKEN"]
  const allRanks = options.allRanks ?? ["1", "true", "True", "yes"].includes(env["DISPATCH_REPORT_ALL_RANKS"] ?? "")
  const target = ((): Settings["target"] => {
    if (rank !== 0 && !allRanks) return { off: `rank ${rank} does not report (only rank 0 does unless allRanks)`, quiet: true }
    if (url === undefined || url === "" || job === undefined || job === "" || token === undefined || token === "") {
      return { off: "DIOPTRA_SERVICE_URL, DIOPTRA_JOB_ID and DIOPTRA_REPORT_TOKEN are not all set; reporting is off", quiet: false }
    }
    const parsed = URL.canParse(url) ? new URL(url) : undefined
    // An http(s) URL always has a host (WHATWG URL refuses one without).
    if (parsed === undefined || !["http:", "https:"].includes(parsed.protocol)) {
      return { off: `DIOPTRA_SERVICE_URL ${JSON.stringify(url)} is not an http(s) URL; reporting is off`, quiet: false }
    }
    parsed.pathname = `${parsed.pathname.replace(/\/+$/, "")}/jobs/${encodeURIComponent(String(job))}/reports`
    parsed.search = ""
    parsed.hash = ""
    return { url: parsed, token }
  })()
  return {
    rank,
    target,
    maxBuffer: Math.floor(within(options.maxBuffer, 100_000, 1, Number.MAX_SAFE_INTEGER)),
    batchSize: Math.floor(within(options.batchSize, 1_000, 1, 5_000)),
    batchBytes: within(options.batchBytes, 512 * 1024, 1024, 1024 * 1024 - 4096),
    intervalMs: within(options.intervalMs, 1_000, 1, 2 ** 31 - 1),
    timeoutMs: within(options.timeoutMs, 10_000, 1, 2 ** 31 - 1),
    backoffMs: within(options.backoffMs, 500, 0, 2 ** 31 - 1),
    maxBackoffMs: within(options.maxBackoffMs, 30_000, 0, 2 ** 31 - 1),
    exitTimeoutMs: within(options.exitTimeoutMs, 5_000, 0, 2 ** 31 - 1),
    loggerName: options.loggerName ?? "train"
  }
}
