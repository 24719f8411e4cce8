// Whether the service is ready to serve: what `/readyz` checks (the database answers and has every migration, the
// dispatcher runs when there is one) and what it says while the service is still starting.
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"
import { reasonOf } from "../store/Database.ts"
import { migrations, recordedMigrations } from "../store/Migrations.ts"
import { serviceFigures } from "../store/ServiceFigures.ts"

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
  reasons: [startupReason(step)],
  queues: []
})

/** What `/readyz` checked and found; ready only when every check passed. */
export interface Readiness {
  readonly ready: boolean
  readonly database: string
  readonly migrations: string
  readonly dispatcher: DispatcherState
  /** Why the service is not ready, one reason per failed check. */
  readonly reasons: ReadonlyArray<string>
  /** The queues whose gate is not open, each with the reason its last proof gave (a permission the cluster
   * refused is named there). They do not make the service unready: its other queues, and its API, still serve. */
  readonly queues: ReadonlyArray<QueueNotOpen>
}

/** A queue whose gate is not open, as /readyz names it. */
export interface QueueNotOpen {
  readonly id: number
  readonly name: string
  readonly state: string
  readonly reason: string
}

/** Checks the database answers, has every migration, and that the dispatcher runs when there is one. */
export const readiness = (dispatcher: DispatcherState): Effect.Effect<Readiness, never, SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const reasons: Array<string> = []
    let database = "reachable"
    let applied = "unknown"
    // What was learnt before a statement failed stays said: the migrations read, then the database unreachable.
    const checked = yield* Effect.result(
      Effect.gen(function* () {
        const figures = yield* serviceFigures
        yield* figures.answers
        const have = yield* recordedMigrations
        const missing = migrations.filter((m) => !have.has(m.version)).map((m) => m.version)
        applied = missing.length === 0 ? `all ${migrations.length} applied` : `missing ${missing.join(", ")}`
        if (missing.length > 0) {
          reasons.push(`migrations ${missing.join(", ")} are not applied`)
          // The gates are read only from a schema that has them.
          return []
        }
        return (yield* figures.gatesNotOpen).map((g): QueueNotOpen => ({ id: g.queue, name: g.name, state: g.state, reason: g.reason }))
      })
    )
    const queues = checked._tag === "Success" ? checked.success : []
    if (checked._tag === "Failure") {
      database = `unreachable: ${reasonOf(checked.failure)}`
      reasons.push(`the database is ${database}`)
    }
    if (dispatcher === "stopped") reasons.push("the dispatcher has stopped")
    if (dispatcher === "starting") reasons.push(startupReason("dispatcher starting"))
    return { ready: reasons.length === 0, database, migrations: applied, dispatcher, reasons, queues }
  })
