// `dispatch list`: every job dispatch manages in the namespace, from one labelled list of TrainJobs (and
// in Kueue mode one of Workloads); `-l` narrows it, `-w` keeps watching and prints each change.
import { Effect, Result } from "effect"
import { humanDuration } from "@dispatch/kube"
import { labelKeys, admissionGateName, type BackendConfig } from "@dispatch/render"
import { Cluster, type JobState, type KubeResource, TrainJobs, Workloads, jobState, openBackend, readFailure, requireAccess, workloadFor, jobUidLabel } from "@dispatch/effects"
import { type ClusterCommandSpec, clusterImpl } from "../ClusterCommand.ts"
import { parseClusterCommand } from "../ClusterArgs.ts"
import { Commands, type ListFormats } from "../Commands.ts"
import type { CliIo } from "../CliIo.ts"
import { formatValue } from "../Output.ts"
import { runProgram } from "../RunProgram.ts"
import { stateDetail } from "./Find.ts"

/** One job as `dispatch list` shows it. */
export interface ListedJob {
  readonly job: string
  readonly submission: number
  readonly state: JobState["state"]
  readonly detail: string
  readonly namespace: string
  readonly trainJob: string
  readonly uid: string
  readonly createdAt: string
}

/** Lines of a table: each column as wide as its widest cell, two spaces apart. */
export const table = (rows: ReadonlyArray<ReadonlyArray<string>>): ReadonlyArray<string> => {
  const widths = rows.reduce<Array<number>>((w, row) => row.map((cell, i) => Math.max(w[i] ?? 0, cell.length)), [])
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  ").trimEnd())
}


/** The table (or names) of `jobs` at `nowMs`. */
export const listLines = (jobs: ReadonlyArray<ListedJob>, format: "text" | "wide" | "name", nowMs: number, header = true): ReadonlyArray<string> => {
  if (format === "name") return jobs.map((j) => `trainjob/${j.trainJob}`)
  const head = format === "wide" ? ["JOB", "SUBMISSION", "STATE", "AGE", "TRAINJOB", "NAMESPACE", "UID", "DETAIL"] : ["JOB", "SUBMISSION", "STATE", "AGE", "TRAINJOB"]
  const rows = jobs.map((j) => {
    const cells = [j.job, String(j.submission), j.state, humanDuration(nowMs - Date.parse(j.createdAt)), j.trainJob]
    return format === "wide" ? [...cells, j.namespace, j.uid, j.detail] : cells
  })
  return table(header ? [head, ...rows] : rows)
}

const text = (value: unknown): string => (typeof value === "string" ? value : "")

/** Every job dispatch manages in the config's namespace, narrowed by `selector`: one labelled list. */
export const listJobs = (config: BackendConfig, selector: string | undefined) =>
  Effect.gen(function* () {
    yield* requireAccess(openBackend(config), "read")
    const cluster = yield* Cluster
    const keys = labelKeys(config)
    const trainJobs = yield* Effect.mapError(cluster.list(TrainJobs, config.namespace, [keys.jobId, ...(selector === undefined ? [] : [selector])].join(",")), readFailure)
    const workloads: ReadonlyArray<KubeResource> =
      config.mode === "kueue" && trainJobs.length > 0 ? yield* Effect.mapError(cluster.list(Workloads, config.namespace, jobUidLabel), readFailure) : []
    // AGE is read against the cluster's clock (an embedded simulator's may run fast, or start elsewhere);
    // against a real server this machine's, as kubectl's.
    const nowMs = yield* cluster.now
    const jobs = trainJobs.map((trainJob): ListedJob => {
      const state = jobState({
        mode: config.mode,
        trainJob,
        workload: workloadFor(workloads, trainJob.metadata.uid),
        inFlightAtMs: undefined,
        nowMs,
        callBoundMs: config.timeouts.callBoundMs,
        admissionGate: admissionGateName(config),
        check: config.kueue?.admissionCheck
      })
      const labels = trainJob.metadata.labels ?? {}
      return {
        job: text(labels[keys.jobId]),
        submission: Number(labels[keys.submission]),
        state: state.state,
        detail: stateDetail({ ...state, ref: { namespace: config.namespace, name: trainJob.metadata.name ?? "" } }),
        namespace: config.namespace,
        trainJob: trainJob.metadata.name ?? "",
        uid: trainJob.metadata.uid ?? "",
        createdAt: text(trainJob.metadata.creationTimestamp)
      }
    })
    return { jobs: [...jobs].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.trainJob.localeCompare(b.trainJob)), nowMs }
  })

/** How often `list -w` lists again. */
const WATCH_EVERY_MS = 2000

const printJobs = (io: CliIo, format: (typeof ListFormats)[number], jobs: ReadonlyArray<ListedJob>, nowMs: number, header: boolean): void => {
  if (format === "json" || format === "yaml") io.out(formatValue(format, jobs))
  else for (const line of listLines(jobs, format, nowMs, header)) io.out(line)
}

/** `list -w`: the list, then each job whose state changed (or that appeared), until stopped or --timeout. */
const watchJobs = (io: CliIo, config: BackendConfig, selector: string | undefined, format: (typeof ListFormats)[number]) =>
  Effect.gen(function* () {
    const seen = new Map<string, string>()
    for (let first = true; ; first = false) {
      const { jobs, nowMs } = yield* listJobs(config, selector)
      const changed = jobs.filter((j) => seen.get(j.trainJob) !== j.state)
      for (const j of jobs) seen.set(j.trainJob, j.state)
      if (first || changed.length > 0) printJobs(io, format, first ? jobs : changed, nowMs, first)
      yield* Effect.sleep(WATCH_EVERY_MS)
    }
  })

interface ListArgs {
  readonly selector?: string
  readonly watch: boolean
  readonly format: (typeof ListFormats)[number]
}

/** `dispatch list`. */
export const listCommand: ClusterCommandSpec<ListArgs> = {
  help: Commands.list,
  writes: false,
  ownsWaits: true,
  parse: (list) =>
    parseClusterCommand(Commands.list, list, (options) => {
      const selector = options.value("selector")
      const watch = options.value("watch")
      const format = options.value("output")
      return () => ({ ...(selector === undefined ? {} : { selector }), watch, format })
    }, true),
  body: async ({ args, config, session, io }) => {
    if (!args.watch) {
      const listed = await runProgram(listJobs(config, args.selector), session)
      if (Result.isFailure(listed)) return listed.failure
      // As kubectl: nothing to list is said on stderr, so stdout stays a (here empty) table.
      if (listed.success.jobs.length === 0 && (args.format === "text" || args.format === "wide")) io.err(`No jobs found in namespace ${config.namespace}.`)
      else printJobs(io, args.format, listed.success.jobs, listed.success.nowMs, true)
      return undefined
    }
    const stopped = Effect.promise(() => io.stopRequested)
    const bounded = args.timeoutMs === undefined ? stopped : Effect.race(stopped, Effect.sleep(args.timeoutMs))
    const watched = await runProgram(Effect.raceFirst(watchJobs(io, config, args.selector, args.format), bounded), session)
    return Result.isFailure(watched) ? watched.failure : undefined
  }
}

/** `dispatch list` as the CLI runs it. */
export const listImpl = clusterImpl(listCommand)
