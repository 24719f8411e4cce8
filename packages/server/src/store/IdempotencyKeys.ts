// The idempotency keys' table: one row per key of a caller, the answer its first request got, written in the
// transaction of the creation it names.
import { Cause, Effect, Option, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"
import type { SqlError } from "effect/sql"

// A second namespace for advisory locks beside the migrations' lock, so the two never collide.
const keyLockSpace = 7_270_319

/** A key as its caller names it: the group and principal it is scoped to, and the key. */
export const KeyOfCaller = Schema.Struct({ group: Schema.String, principal: Schema.String, key: Schema.String })

/** The answer remembered under a key: the request's fingerprint, and the status and JSON text answered. */
export const RememberedAnswer = Schema.Struct({ fingerprint: Schema.String, status: Schema.Number, body: Schema.String })

/** What the idempotency keys' table offers; every statement runs in the caller's transaction. */
export interface IdempotencyKeys {
  /** Takes the key's advisory lock for the transaction; false when another transaction holds it now. */
  readonly lock: (scope: string) => Effect.Effect<boolean, SqlError.SqlError | Schema.SchemaError | Cause.NoSuchElementError>
  /** The answer remembered under the key within the 24 hours before `now`, if any. */
  readonly recent: (
    key: typeof KeyOfCaller.Type,
    now: string
  ) => Effect.Effect<Option.Option<typeof RememberedAnswer.Type>, SqlError.SqlError | Schema.SchemaError>
  /** Forgets the answers older than 24 hours before `now`, and remembers this one under the key. */
  readonly remember: (key: typeof KeyOfCaller.Type, answer: typeof RememberedAnswer.Type, now: string) => Effect.Effect<void, SqlError.SqlError | Schema.SchemaError>
}

/** The idempotency keys' repository over the SqlClient in context. */
export const idempotencyKeys: Effect.Effect<IdempotencyKeys, never, SqlClient.SqlClient> = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const lock = SqlSchema.findOne({
    Request: Schema.String,
    Result: Schema.Struct({ got: Schema.Boolean }),
    execute: (scope) => sql`select pg_try_advisory_xact_lock(${keyLockSpace}::int, hashtext(${scope})) as got`
  })
  const recent = SqlSchema.findOneOption({
    Request: Schema.Struct({ ...KeyOfCaller.fields, now: Schema.String }),
    Result: RememberedAnswer,
    execute: (key) =>
      sql`select fingerprint, status, body from idempotency_keys
         where grp = ${key.group} and principal = ${key.principal} and key = ${key.key} and created_on > ${key.now}::timestamptz - interval '24 hours'`
  })
  const forgetOld = SqlSchema.void({
    Request: Schema.String,
    execute: (now) => sql`delete from idempotency_keys where created_on <= ${now}::timestamptz - interval '24 hours'`
  })
  const insert = SqlSchema.void({
    Request: Schema.Struct({ ...KeyOfCaller.fields, ...RememberedAnswer.fields, now: Schema.String }),
    execute: (row) =>
      sql`insert into idempotency_keys (grp, principal, key, fingerprint, status, body, created_on)
         values (${row.group}, ${row.principal}, ${row.key}, ${row.fingerprint}, ${row.status}, ${row.body}, ${row.now})`
  })
  return {
    lock: (scope) => Effect.map(lock(scope), (row) => row.got),
    recent: (key, now) => recent({ ...key, now }),
    remember: (key, answer, now) => Effect.andThen(forgetOld(now), insert({ ...key, ...answer, now }))
  }
})
