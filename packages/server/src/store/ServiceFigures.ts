// What the service reports about itself from the database: that it answers, and the figures of /metrics that every
// process reads the same (jobs by status, dispatch attempts and errors, retention's removals, the queues' gates).
import { Effect, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"

const Count = Schema.Struct({ n: Schema.Number })

const StatusCount = Schema.Struct({ status: Schema.String, n: Schema.Number })
const ErrorCount = Schema.Struct({ kind: Schema.NullOr(Schema.String), n: Schema.Number })
const QueueGate = Schema.Struct({ queue: Schema.Number, name: Schema.String, state: Schema.String })
const GateNotOpen = Schema.Struct({ queue: Schema.Number, name: Schema.String, state: Schema.String, reason: Schema.String })

/** The service figures' repository over the SqlClient in context. */
export const serviceFigures = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const one = (statement: Effect.Effect<ReadonlyArray<unknown>, any>) => Effect.map(Effect.flatMap(statement, Schema.decodeUnknownEffect(Schema.Array(Count))), (rows) => rows[0]?.n ?? 0)
  const all = <S extends Schema.Top>(row: S, statement: Effect.Effect<ReadonlyArray<unknown>, any>) => Effect.flatMap(statement, Schema.decodeUnknownEffect(Schema.Array(row)))
  return {
    /** Succeeds when the database answers a statement. */
    answers: Effect.asVoid(sql`select 1`),
    /** The queues (not deleted) whose last proof left them not open, with the reason it gave. */
    gatesNotOpen: all(
      GateNotOpen,
      sql`select q.id as queue, q.name, g.state, g.reason from queues q join queue_gates g on g.queue = q.id where not q.deleted and g.state <> 'open' order by q.id`
    ),
    /** The figures of /metrics, read one after the other. */
    figures: Effect.all(
      {
        jobsByStatus: all(StatusCount, sql`select status, count(*)::int as n from jobs where not deleted group by status order by status`),
        attempts: one(sql`select coalesce(sum(attempts), 0)::int as n from jobs`),
        lastErrors: all(ErrorCount, sql`select last_error->>'error' as kind, count(*)::int as n from jobs where last_error is not null group by 1 order by 1`),
        removed: one(sql`select count(*)::int as n from jobs where cluster_removed_on is not null and cluster_removal_reason is null`),
        gates: all(
          QueueGate,
          sql`select q.id as queue, q.name, coalesce(g.state, 'unproven') as state from queues q left join queue_gates g on g.queue = q.id order by q.id`
        )
      },
      { concurrency: 1 }
    )
  }
})
