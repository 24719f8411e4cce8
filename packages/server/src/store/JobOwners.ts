// Which group a job belongs to, for the one caller that knows a job's id before anything else: a workload's
// report token, which names its job.
import { Effect, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"

const OwnerRow = Schema.Struct({ grp: Schema.String })

/** The job owners' repository over the SqlClient in context. */
export const jobOwners = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return {
    /** The group of a job that exists (is not deleted). */
    groupOf: SqlSchema.findOneOption({ Request: Schema.Number, Result: OwnerRow, execute: (id) => sql`select grp from jobs where id = ${id} and not deleted` })
  }
})
