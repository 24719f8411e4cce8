// The memory of TrainJob creates that went unanswered, kept in the database instead of one process: a create may
// still land until its call bound has passed, and every process and every restart must see that, or one of them
// (Find seeing nothing) would create the TrainJob again or call a job's Stop done before its TrainJob lands.
import { InFlight } from "@dispatch/effects"
import { Effect, Layer, Option } from "effect"
import type { Database } from "./store/Database.ts"

// An entry outlives any call bound by far after a day; older ones are dropped as new ones are written.
const keepMs = 86_400_000

/** The InFlight memory Start, Find and Stop share, stored in `unanswered_creates` of this database. */
export const unansweredCreates = (db: Database): Layer.Layer<InFlight> =>
  Layer.succeed(InFlight, {
    remember: (key, atMs) =>
      Effect.promise(async () => {
        await db.query(
          `insert into unanswered_creates (key, at_ms) values ($1, $2)
           on conflict (key) do update set at_ms = greatest(unanswered_creates.at_ms, excluded.at_ms)`,
          [key, atMs]
        )
        await db.query(`delete from unanswered_creates where at_ms < $1`, [atMs - keepMs])
      }),
    lookup: (key) =>
      Effect.promise(async () => {
        const [row] = await db.query<{ atMs: number }>(`select at_ms as "atMs" from unanswered_creates where key = $1`, [key])
        return row === undefined ? Option.none() : Option.some(Number(row.atMs))
      }),
    forget: (key) => Effect.promise(() => db.query(`delete from unanswered_creates where key = $1`, [key]).then(() => undefined))
  })
