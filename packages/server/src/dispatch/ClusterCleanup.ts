// What the dispatcher removes from the cluster besides cancelled jobs' TrainJobs: leftover runtime copies (the
// sweeper) and ended jobs' objects once the retention has passed. Both run on the dispatcher's passes, each at
// most once per `everyMs`, so a pass that has nothing else to do stays cheap.
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { reasonOf } from "../store/Database.ts"
import type { DispatchContext } from "./DispatchContext.ts"
import { retentionPassEffect } from "./Retention.ts"
import { sweeper } from "./Sweeper.ts"

/** How long ended jobs keep their cluster objects, and how the sweeper treats leftover copies. */
export interface CleanupSettings {
  /** How long after a job ends its TrainJob and runtime copy stay on the cluster, in service-clock ms. */
  readonly retentionMs: number
  /** Least age of an ownerless runtime copy the sweeper deletes, by the cluster's clock. */
  readonly sweepGraceMs: number
  /** Least time between two sweeps of a namespace, and between two retention passes, in service-clock ms. */
  readonly everyMs: number
}

/** Keep an ended job's objects 24 h, as a platform team's ttlSecondsAfterFinished often does. */
export const defaultRetentionMs = 86_400_000
/** Sweep a copy once it is an hour old with no TrainJob: far past any Start's bound with the default timeouts. */
export const defaultSweepGraceMs = 3_600_000
/** Sweep each namespace, and look for ended jobs past the retention, once a minute. */
export const defaultCleanupEveryMs = 60_000

/** Jobs retention takes per pass; a full batch makes the next pass take more at once. */
export const retentionBatch = 50

/** What one cleanup did: copies swept, ended jobs whose objects were removed, and what the database refused. */
export interface CleanupReport {
  readonly swept: number
  readonly removed: number
  readonly problems: ReadonlyArray<string>
}

/** The cleanup of one dispatcher; `run` runs the sweeper and retention when they are due. */
export const clusterCleanup = (context: DispatchContext, settings: CleanupSettings, log: (line: string) => void) => {
  const sweep = sweeper(context, { graceMs: settings.sweepGraceMs, everyMs: settings.everyMs }, log)
  // When retention next runs: `everyMs` after it last ran, or at once after a full batch (more may be due).
  let nextRetention = Number.NEGATIVE_INFINITY
  const run: Effect.Effect<CleanupReport, never, SqlClient.SqlClient> = Effect.gen(function* () {
    const problems: Array<string> = []
    const swept = yield* Effect.catch(sweep.run, (cause) => {
      problems.push(`sweeper: ${reasonOf(cause)}`)
      return Effect.succeed({ deleted: 0 })
    })
    let removed = 0
    const now = context.clock()
    if (now >= nextRetention) {
      const report = yield* Effect.catch(retentionPassEffect(context, settings.retentionMs, retentionBatch, log), (cause) => {
        problems.push(`retention: ${reasonOf(cause)}`)
        return Effect.succeed({ removed: 0, taken: 0 })
      })
      removed = report.removed
      nextRetention = report.taken >= retentionBatch ? now : now + settings.everyMs
    }
    return { swept: swept.deleted, removed, problems }
  })
  return { run }
}
