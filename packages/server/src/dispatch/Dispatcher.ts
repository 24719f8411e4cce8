import type { Cluster, ClusterError } from "@dispatch/effects"
import { defaultRetryPolicy } from "@dispatch/jobs"
import { Context, Effect, Layer } from "effect"
import { clusterCleanup, defaultCleanupEveryMs, defaultRetentionMs, defaultSweepGraceMs } from "./ClusterCleanup.ts"
import { makeClusterRuntime } from "./ClusterRuntime.ts"
import { DatabaseService, type Database } from "../store/Database.ts"
import type { DispatchContext } from "./DispatchContext.ts"
import { releaseOwnClaims } from "../store/DispatchStore.ts"
import { defaultBackoff, retryPolicyOf, type Backoff } from "./Retries.ts"
import { jobControl, type JobControl } from "./JobControl.ts"
import { dispatchPass } from "./JobDispatch.ts"
import { queueProver } from "./QueueProver.ts"
import { StatusSyncService, statusSyncLayer } from "./StatusSync.ts"
import { unansweredCreates } from "../store/UnansweredCreates.ts"

/** How the service takes jobs to the cluster. */
export interface DispatchOptions {
  /** How to reach the cluster every queue's backend is on (e.g. `KubeCluster({ kubeconfigPath, callMs })`). */
  readonly cluster: Layer.Layer<Cluster, ClusterError>
  /** Jobs taken to the cluster at once (default 8). */
  readonly concurrency?: number
  /** Time between two passes when there is nothing to do, in real ms (default 1000). */
  readonly pollMs?: number
  /** How long a claim holds a job before another process may take it over, in service-clock ms (default 10 min). */
  readonly leaseMs?: number
  /** Least time between two status syncs (one Find per queue), in service-clock ms (default 1000). */
  readonly syncMs?: number
  /** How often a queue that is not open is proven again, in service-clock ms (default 60 s). */
  readonly reproveMs?: number
  /** Retry spacing after a passing fault: each delay a uniform draw below a cap of 1 s doubling to 5 min (default). */
  readonly backoff?: Backoff
  /** The retry budget: a job that meets a passing fault after this many attempts, or this long after its first,
   * fails with every attempt's reason (default 12 attempts, 24 h). */
  readonly retry?: { readonly maxAttempts?: number; readonly maxElapsedMs?: number }
  /** The job API's base URL as the workloads reach it; the service's own `<url>/api/v1` when absent. */
  readonly reportUrl?: string
  /** This process's name on claims (default: random). Give a restarted service the name it had, and the claims
   * its previous run left are taken over at once instead of after their lease. */
  readonly instance?: string
  /** False: no timer runs passes; the caller calls `pass()` (default true). */
  readonly autorun?: boolean
  /** How long a finished, failed or cancelled job's TrainJob and runtime copy stay on the cluster after it ended, in
   * service-clock ms (default 24 h); the job's status, logs and metrics stay in the service. */
  readonly retentionMs?: number
  /** Least age, by the cluster's clock, of a runtime copy no TrainJob owns before the sweeper deletes it (default
   * 1 h; never less than the backend's `2 × timeouts.callBound + timeouts.workload`). */
  readonly sweepGraceMs?: number
  /** Least time between two sweeps of a namespace, and between two retention passes, in service-clock ms (default 60 s). */
  readonly cleanupEveryMs?: number
  /** Where the sweeper and retention say what they deleted, one line each (default: stderr). */
  readonly log?: (line: string) => void
}

/** What one pass did. */
export interface PassReport {
  readonly proven: number
  readonly dispatched: number
  readonly followed: number
  readonly stopped: number
  /** Runtime copies the sweeper deleted. */
  readonly swept: number
  /** Ended jobs whose cluster objects retention removed. */
  readonly removed: number
  /** What could not be recorded (the database failed mid-pass), one line per job; those jobs are retried. */
  readonly problems: ReadonlyArray<string>
}

/** The dispatcher inside a service. */
export interface Dispatcher {
  readonly instance: string
  readonly control: JobControl
  /** One pass: starts proving queues that need it (all of them on the first pass) without waiting for their probes,
   * claims and starts due jobs on open queues, follows every opened job with Find (at most once per syncMs) and stops
   * every stopping one (cancelled, deleted, or failed after something may have landed); when due, sweeps leftover
   * runtime copies and removes ended jobs' objects past the retention. Passes never overlap: a call during one waits
   * for it. */
  readonly pass: () => Promise<PassReport>
  /** Resolves once every probe started so far has stored its gate. */
  readonly proven: () => Promise<void>
  /** Stops the timer, interrupts cluster calls in progress (their claims stay until their lease ends) and waits. */
  readonly close: () => Promise<void>
}

/** What a dispatcher is made from besides its options. */
export interface DispatcherParts {
  readonly db: Database
  readonly clock: () => number
  readonly entropy: (n: number) => ReadonlyArray<number>
  readonly secret: string
  readonly reportUrl: string
  /** The status sync the passes call, over the dispatcher's context; `statusSyncLayer` when absent. */
  readonly statusSync?: (context: DispatchContext) => Layer.Layer<StatusSyncService>
}

/** Starts a dispatcher; with `autorun` its first pass begins at once. */
export const startDispatcher = (options: DispatchOptions, parts: DispatcherParts): Dispatcher => {
  // Unanswered creates are remembered in the database, so every process and every restart honours them.
  const cluster = makeClusterRuntime(options.cluster, "Warn", unansweredCreates(parts.db))
  const instance = options.instance ?? Buffer.from(parts.entropy(8)).toString("hex")
  const context: DispatchContext = {
    db: parts.db,
    cluster,
    instance,
    clock: parts.clock,
    now: () => new Date(parts.clock()).toISOString(),
    entropy: parts.entropy,
    secret: parts.secret,
    reportUrl: options.reportUrl ?? parts.reportUrl,
    leaseMs: options.leaseMs ?? 600_000,
    policy: retryPolicyOf(options.backoff ?? defaultBackoff, options.retry ?? {}, defaultRetryPolicy)
  }
  const concurrency = Math.max(1, options.concurrency ?? 8)
  const reproveMs = options.reproveMs ?? 60_000
  const syncMs = options.syncMs ?? 1000
  let lastSync = Number.NEGATIVE_INFINITY
  let first = true
  let closed = false
  let running: Promise<PassReport> | undefined
  let timer: ReturnType<typeof setTimeout> | undefined
  let again = false
  // A queue just proven open may have jobs waiting: the next pass starts at once.
  const prover = queueProver(context, () => wake())
  const cleanup = clusterCleanup(
    context,
    {
      retentionMs: options.retentionMs ?? defaultRetentionMs,
      sweepGraceMs: options.sweepGraceMs ?? defaultSweepGraceMs,
      everyMs: options.cleanupEveryMs ?? defaultCleanupEveryMs
    },
    options.log ?? ((line) => void process.stderr.write(`${line}\n`))
  )
  const statusSync = Effect.runSync(Effect.provide(Effect.service(StatusSyncService), (parts.statusSync ?? statusSyncLayer)(context)))

  const onePass = async (): Promise<PassReport> => {
    if (closed) return { proven: 0, dispatched: 0, followed: 0, stopped: 0, swept: 0, removed: 0, problems: [] }
    const all = first
    first = false
    if (all && options.instance !== undefined) await releaseOwnClaims(context.db, instance)
    // Probes run beside the passes: one namespace's probe (which may wait minutes for a leftover probe's objects)
    // never holds up dispatching on other queues or following the jobs already on the cluster.
    const proven = await prover.prove(all, reproveMs)
    const dispatch = await dispatchPass(context, concurrency)
    // Dispatching is cheap to repeat; following lists every opened job, so it runs at most once per syncMs.
    const due = context.clock() - lastSync >= syncMs
    if (due) lastSync = context.clock()
    const sync = due ? await statusSync.follow() : { followed: 0, problems: [] }
    const stopped = await statusSync.stopCancelled()
    const cleaned = await cleanup.pass()
    return {
      proven,
      dispatched: dispatch.claimed,
      followed: sync.followed,
      stopped,
      swept: cleaned.swept,
      removed: cleaned.removed,
      problems: [...dispatch.problems, ...sync.problems, ...cleaned.problems]
    }
  }

  const pass = (): Promise<PassReport> => {
    const previous = running ?? Promise.resolve(undefined)
    const next = previous.catch(() => undefined).then(onePass)
    running = next
    return next
  }

  // A full batch means more jobs may be due: the next pass starts at once instead of after pollMs.
  const schedule = (delayMs: number) => {
    if (closed || options.autorun === false) return
    timer = setTimeout(() => {
      timer = undefined
      again = false
      pass().then(
        (report) => schedule(report.dispatched >= concurrency || again ? 0 : options.pollMs ?? 1000),
        () => schedule(options.pollMs ?? 1000)
      )
    }, delayMs)
  }

  const wake = () => {
    if (closed || options.autorun === false) return
    if (timer === undefined) again = true
    else {
      clearTimeout(timer)
      schedule(0)
    }
  }

  schedule(0)
  return {
    instance,
    control: jobControl(context, wake),
    pass,
    proven: prover.settled,
    close: async () => {
      closed = true
      if (timer !== undefined) clearTimeout(timer)
      await cluster.close()
      await running?.catch(() => undefined)
      await prover.settled()
    }
  }
}

/** The dispatcher as an Effect service: started on the database service when its layer is built, closed with its scope. */
export class DispatcherService extends Context.Service<DispatcherService, Dispatcher>()("dispatch/Dispatcher") {}

/** A layer of the dispatcher service over whichever database layer provides `DatabaseService`. */
export const dispatcherLayer = (options: DispatchOptions, parts: Omit<DispatcherParts, "db">): Layer.Layer<DispatcherService, never, DatabaseService> =>
  Layer.effect(
    DispatcherService,
    Effect.acquireRelease(
      Effect.map(Effect.service(DatabaseService), (db) => startDispatcher(options, { ...parts, db })),
      (dispatcher) => Effect.promise(() => dispatcher.close())
    )
  )
