import type { Cluster, ClusterError } from "@dispatch/effects"
import { defaultRetryPolicy } from "@dispatch/jobs"
import { Context, Effect, Exit, Layer, Queue, Ref, Schedule, Scope, Semaphore } from "effect"
import { SqlClient } from "effect/sql"
import { clusterCleanup, defaultCleanupEveryMs, defaultRetentionMs, defaultSweepGraceMs } from "./ClusterCleanup.ts"
import { makeClusterRuntime } from "./ClusterRuntime.ts"
import type { DispatchContext } from "./DispatchContext.ts"
import { dispatchLeases } from "../store/DispatchLeases.ts"
import { defaultBackoff, retryPolicyOf, type Backoff } from "./Retries.ts"
import { jobControl, type JobControlEffects } from "./JobControl.ts"
import { dispatchPassEffect } from "./JobDispatch.ts"
import { makeQueueProver } from "./QueueProver.ts"
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
  /** False: no fiber runs passes; the caller runs `runPass` (default true). */
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
  readonly control: JobControlEffects
  /** One pass as an Effect: starts proving queues that need it (all of them on the first pass) without waiting for
   * their probes, claims and starts due jobs on open queues, follows every opened job with Find (at most once per
   * syncMs) and stops every stopping one (cancelled, deleted, or failed after something may have landed); when due,
   * sweeps leftover runtime copies and removes ended jobs' objects past the retention. Passes never overlap: one
   * asked for during another waits for it. It fails with what the database threw. */
  readonly runPass: Effect.Effect<PassReport, unknown>
  /** Ends once every probe started so far has stored its gate. */
  readonly awaitProven: Effect.Effect<void>
}

/** What a dispatcher is made from besides its options. */
export interface DispatcherParts {
  readonly clock: () => number
  readonly entropy: (n: number) => ReadonlyArray<number>
  readonly secret: string
  readonly reportUrl: string
  /** The status sync the passes call, over the dispatcher's context; `statusSyncLayer` when absent. */
  readonly statusSync?: (context: DispatchContext) => Layer.Layer<StatusSyncService, never, SqlClient.SqlClient>
}

const idle: PassReport = { proven: 0, dispatched: 0, followed: 0, stopped: 0, swept: 0, removed: 0, problems: [] }

/**
 * The dispatcher, in the scope it runs in, on the database in context: with `autorun`, its loop and its wake-ups are
 * fibers of that scope, the loop paced by a `Schedule` (pollMs between passes, none after a full batch). Closing the
 * scope stops it: it stops taking work, interrupts cluster calls in progress, waits for the pass under way and every
 * probe, and hands back the claims this process holds (their jobs are taken over at once, here or by another process).
 */
export const makeDispatcher = (options: DispatchOptions, parts: DispatcherParts): Effect.Effect<Dispatcher, never, Scope.Scope | SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const scope = yield* Effect.scope
    const database = yield* Effect.context<SqlClient.SqlClient>()
    const leases = yield* dispatchLeases
    // Unanswered creates are remembered in the database, so every process and every restart honours them.
    const cluster = yield* Effect.acquireRelease(
      Effect.sync(() => makeClusterRuntime(options.cluster, "Warn", Layer.provide(unansweredCreates, Layer.succeedContext(database)))),
      (runtime) => runtime.close
    )
    const instance = options.instance ?? Buffer.from(parts.entropy(8)).toString("hex")
    const log = options.log ?? ((line: string) => void process.stderr.write(`${line}\n`))
    const context: DispatchContext = {
      log,
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
    const pollMs = options.pollMs ?? 1000
    const autorun = options.autorun !== false
    const lastSync = yield* Ref.make(Number.NEGATIVE_INFINITY)
    const first = yield* Ref.make(true)
    const lastProblems = yield* Ref.make<ReadonlySet<string>>(new Set())
    const closed = yield* Ref.make(false)
    const passing = yield* Semaphore.make(1)
    // At most one wake-up waits: wakes while a pass runs ask for one more pass right after it, not one each.
    const wakes = yield* Queue.dropping<void>(1)
    const wake = () => {
      if (autorun) Queue.offerUnsafe(wakes, undefined)
    }
    // A queue just proven open may have jobs waiting: the next pass starts at once.
    const prover = yield* makeQueueProver(context, wake)
    const cleanup = clusterCleanup(
      context,
      {
        retentionMs: options.retentionMs ?? defaultRetentionMs,
        sweepGraceMs: options.sweepGraceMs ?? defaultSweepGraceMs,
        everyMs: options.cleanupEveryMs ?? defaultCleanupEveryMs
      },
      log
    )
    // Its passes run in the dispatcher's fiber, inside the pass that calls them.
    const { follow, stopCancelled } = yield* Effect.provide(Effect.service(StatusSyncService), (parts.statusSync ?? statusSyncLayer)(context))

    const onePass = Effect.gen(function* () {
      if (yield* Ref.get(closed)) return idle
      const all = yield* Ref.getAndSet(first, false)
      if (all && options.instance !== undefined) yield* leases.releaseOwnClaims(instance)
      // Probes run beside the passes: one namespace's probe (which may wait minutes for a leftover probe's objects)
      // never holds up dispatching on other queues or following the jobs already on the cluster.
      const proven = yield* prover.prove(all, reproveMs)
      const dispatch = yield* dispatchPassEffect(context, concurrency)
      // Dispatching is cheap to repeat; following lists every opened job, so it runs at most once per syncMs.
      const due = yield* Ref.modify(lastSync, (last) => {
        const now = context.clock()
        return now - last >= syncMs ? [true, now] : [false, last]
      })
      const sync = due ? yield* follow : { followed: 0, problems: [] }
      const stopped = yield* stopCancelled
      const cleaned = yield* cleanup.run
      // A problem is logged when it first appears, not again on every pass it lasts (a permission refused each second).
      const problems = [...dispatch.problems, ...sync.problems, ...cleaned.problems]
      const before = yield* Ref.getAndSet(lastProblems, new Set(problems))
      for (const problem of problems) if (!before.has(problem) && !cleaned.problems.includes(problem)) log(`dispatch: ${problem}`)
      return {
        proven,
        dispatched: dispatch.claimed,
        followed: sync.followed,
        stopped,
        swept: cleaned.swept,
        removed: cleaned.removed,
        problems
      } satisfies PassReport
    })
    // A pass runs to its end once begun: what it holds is recorded, or abandoned by the cluster runtime's close.
    const runPass = Effect.uninterruptible(passing.withPermit(Effect.provideContext(onePass, database)))
    const awaitProven = prover.settled

    if (autorun) {
      // A full batch means more jobs may be due: the next pass starts at once instead of after pollMs. A pass that
      // failed, or died, is followed by the next after pollMs: the loop outlives it.
      const pacing = (Schedule.spaced(pollMs) as Schedule.Schedule<number, Exit.Exit<PassReport, unknown>>).pipe(
        Schedule.modifyDelay(({ input, duration }) => Effect.succeed(Exit.isSuccess(input) && input.value.dispatched >= concurrency ? 0 : duration))
      )
      yield* Effect.forkIn(Effect.repeat(Effect.exit(runPass), pacing), scope)
      yield* Effect.forkIn(Effect.forever(Effect.andThen(Queue.take(wakes), Effect.exit(runPass))), scope)
    }
    // Added after the fibers were forked, so it runs before they are interrupted (the last added runs first).
    yield* Effect.addFinalizer(() =>
      Effect.gen(function* () {
        yield* Ref.set(closed, true)
        yield* cluster.close
        // Waits for the pass under way (its cluster calls now end as abandoned) and for every probe.
        yield* passing.withPermit(Effect.void)
        yield* awaitProven
        // The claims left (jobs whose calls were abandoned) go back at once: another process, or this one
        // restarted, takes them over instead of waiting out their lease.
        yield* Effect.ignore(Effect.provideContext(leases.releaseOwnClaims(instance), database))
      })
    )
    return { instance, control: jobControl(context, wake), runPass, awaitProven } satisfies Dispatcher
  })

/** The dispatcher as an Effect service: started on the database in context when its layer is built, closed with its scope. */
export class DispatcherService extends Context.Service<DispatcherService, Dispatcher>()("dispatch/Dispatcher") {}

/** A layer of the dispatcher service over the database (effect/sql's SqlClient) its layer graph provides. */
export const dispatcherLayer = (options: DispatchOptions, parts: DispatcherParts): Layer.Layer<DispatcherService, never, SqlClient.SqlClient> =>
  Layer.effect(DispatcherService, makeDispatcher(options, parts))
