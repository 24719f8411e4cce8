// The queues' gates (what each queue's backend was proven able to do, and when), the probe leases that let one
// process at a time prove a namespace, and the service's shared secrets.
import { Effect, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"

/** A stored gate's state: what the Factory proved, or `proving` while its probe runs. */
export const GateState = Schema.Literals(["open", "closed", "read-only", "observe-only", "proving"])

/** A queue's gate as stored: what its Factory proved (or that it is being proven), and when. */
export const GateRow = Schema.Struct({
  queue: Schema.Number,
  state: GateState,
  reason: Schema.String,
  checkedOn: Schema.String,
  checkedAt: Schema.Number
})

/** A queue's gate as stored. */
export type GateRow = typeof GateRow.Type

/** A queue whose backend needs proving: its id and stored backend (as registered). */
export const QueueToProve = Schema.Struct({ id: Schema.Number, backend: Schema.Struct({ config: Schema.Unknown }) })

/** A queue whose backend needs proving. */
export type QueueToProve = typeof QueueToProve.Type

/** A gate to store: the queue, what was proven (or `proving`), why not open, and when (ISO-8601 and ms). */
export interface GateWrite {
  readonly queue: number
  readonly state: typeof GateState.Type
  readonly reason: string
  readonly at: string
  readonly atMs: number
}

/** The queue gates' repository over the SqlClient in context. */
export const queueGates = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const gateColumns = sql.literal(`queue, state, reason, checked_on as "checkedOn", checked_at as "checkedAt"`)
  const secret = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: Schema.Struct({ secret: Schema.String }),
    execute: (name) => sql`select secret from service_keys where name = ${name}`
  })
  return {
    /** Every gate. */
    gates: SqlSchema.findAll({ Request: Schema.Void, Result: GateRow, execute: () => sql`select ${gateColumns} from queue_gates` })(undefined),
    /** One queue's gate, if its backend has been proven. */
    gate: SqlSchema.findOneOption({ Request: Schema.Number, Result: GateRow, execute: (queue) => sql`select ${gateColumns} from queue_gates where queue = ${queue}` }),
    /** Queues to prove: every queue when `all`, else those never proven and those not open, proven before `before`. */
    queuesToProve: (all: boolean, before: number) =>
      Effect.flatMap(
        sql`select q.id, q.backend from queues q left join queue_gates g on g.queue = q.id
            where q.backend is not null and (${all} or g.queue is null or (g.state <> 'open' and g.checked_at <= ${before})) order by q.id`,
        Schema.decodeUnknownEffect(Schema.Array(QueueToProve))
      ),
    /** Stores that a queue's probe runs, unless the queue is open: an open gate stays open until a probe proves otherwise. */
    markProving: (gate: Omit<GateWrite, "state">) =>
      Effect.asVoid(
        sql`insert into queue_gates (queue, state, reason, checked_on, checked_at) values (${gate.queue}, 'proving', ${gate.reason}, ${gate.at}, ${gate.atMs})
            on conflict (queue) do update set state = excluded.state, reason = excluded.reason, checked_on = excluded.checked_on, checked_at = excluded.checked_at
            where queue_gates.state <> 'open'`
      ),
    /** Stores what a queue's Factory proved. */
    writeGate: (gate: GateWrite) =>
      Effect.asVoid(
        sql`insert into queue_gates (queue, state, reason, checked_on, checked_at) values (${gate.queue}, ${gate.state}, ${gate.reason}, ${gate.at}, ${gate.atMs})
            on conflict (queue) do update set state = excluded.state, reason = excluded.reason, checked_on = excluded.checked_on, checked_at = excluded.checked_at`
      ),
    /** Takes the probe lease of a namespace until `untilMs`; false when another holder has it. */
    takeProbeLease: (namespace: string, holder: string, nowMs: number, untilMs: number) =>
      Effect.map(
        sql`insert into probe_leases (namespace, holder, until_ms) values (${namespace}, ${holder}, ${untilMs})
            on conflict (namespace) do update set holder = excluded.holder, until_ms = excluded.until_ms
            where probe_leases.until_ms < ${nowMs} or probe_leases.holder = ${holder} returning holder`,
        (rows) => rows.length > 0
      ),
    /** Gives a probe lease back. */
    releaseProbeLease: (namespace: string, holder: string) => Effect.asVoid(sql`delete from probe_leases where namespace = ${namespace} and holder = ${holder}`),
    /** The service's secret of a name, made from `fresh` the first time any process asks. */
    serviceSecret: (name: string, fresh: string) =>
      Effect.andThen(
        sql`insert into service_keys (name, secret) values (${name}, ${fresh}) on conflict (name) do nothing`,
        Effect.map(secret(name), (row) => Option.match(row, { onNone: () => fresh, onSome: (found) => found.secret }))
      )
  }
})

/** The queue gates' repository. */
export type QueueGates = Effect.Success<typeof queueGates>
