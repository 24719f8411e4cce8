// The memory of TrainJob creates that went unanswered, kept in the database instead of one process: a create may
// still land until its call bound has passed, and every process and every restart must see that, or one of them
// (Find seeing nothing) would create the TrainJob again or call a job's Stop done before its TrainJob lands.
import { InFlight } from "@dispatch/effects"
import { Effect, Layer, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"

// An entry outlives any call bound by far after a day; older ones are dropped as new ones are written.
const keepMs = 86_400_000

/** The unanswered creates' repository over the SqlClient in context: when each create was last sent, by key. */
export const unansweredCreatesTable = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const sentAt = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: Schema.Struct({ atMs: Schema.Number }),
    execute: (key) => sql`select at_ms as "atMs" from unanswered_creates where key = ${key}`
  })
  return {
    /** Remembers a create sent at `atMs` (the latest send wins), and forgets the entries past keeping. */
    remember: (key: string, atMs: number) =>
      Effect.andThen(
        sql`insert into unanswered_creates (key, at_ms) values (${key}, ${atMs})
            on conflict (key) do update set at_ms = greatest(unanswered_creates.at_ms, excluded.at_ms)`,
        sql`delete from unanswered_creates where at_ms < ${atMs - keepMs}`
      ).pipe(Effect.asVoid),
    /** When the create of `key` was last sent, if it went unanswered. */
    lookup: (key: string) => Effect.map(sentAt(key), Option.map((row) => row.atMs)),
    /** Forgets a create (it was answered, or its job is gone). */
    forget: (key: string) => Effect.asVoid(sql`delete from unanswered_creates where key = ${key}`)
  }
})

// A statement that fails here is a defect of the cluster call that asked (InFlight's operations cannot fail): the
// call dies, and the dispatcher records the job's problem and retries it.
/** The InFlight memory Start, Find and Stop share, stored in `unanswered_creates` of the database in context. */
export const unansweredCreates: Layer.Layer<InFlight, never, SqlClient.SqlClient> = Layer.effect(
  InFlight,
  Effect.map(unansweredCreatesTable, (table) => ({
    remember: (key: string, atMs: number) => Effect.orDie(table.remember(key, atMs)),
    lookup: (key: string) => Effect.orDie(table.lookup(key)),
    forget: (key: string) => Effect.orDie(table.forget(key))
  }))
)
