// Login sessions (only a token's SHA-256 is kept, with its user and expiry) and the failed logins counted per user
// and per address.
import { Effect, Schema } from "effect"
import { SqlClient, SqlSchema } from "effect/sql"

/** A live session's user: id, name and group. */
export const SessionUserRow = Schema.Struct({ id: Schema.Number, username: Schema.String, grp: Schema.String })

const FailuresRow = Schema.Struct({ failures: Schema.Number, first_failed_on: Schema.String })

/** The login sessions' repository over the SqlClient in context. */
export const loginSessions = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  return {
    /** The user of the session whose token hashes to `tokenHash`, unless it expired by `now`. */
    user: SqlSchema.findOneOption({
      Request: Schema.Struct({ tokenHash: Schema.String, now: Schema.String }),
      Result: SessionUserRow,
      execute: ({ tokenHash, now }) =>
        sql`select u.id, u.username, u.grp from sessions s join users u on u.id = s.user_id where s.token_hash = ${tokenHash} and s.expires_on > ${now}`
    }),
    /** Stores a session, and forgets the ones expired by `now`. */
    open: (session: { readonly tokenHash: string; readonly userId: number; readonly now: string; readonly expires: string }) =>
      Effect.andThen(
        sql`insert into sessions (token_hash, user_id, created_on, expires_on) values (${session.tokenHash}, ${session.userId}, ${session.now}, ${session.expires})`,
        sql`delete from sessions where expires_on <= ${session.now}`
      ).pipe(Effect.asVoid),
    /** Ends one session, or every session of its user. */
    close: (tokenHash: string, everywhere: boolean) =>
      Effect.asVoid(
        everywhere
          ? sql`delete from sessions where user_id = (select user_id from sessions where token_hash = ${tokenHash})`
          : sql`delete from sessions where token_hash = ${tokenHash}`
      ),
    /** The failed logins counted under `key`, and since when. */
    failures: SqlSchema.findOneOption({ Request: Schema.String, Result: FailuresRow, execute: (key) => sql`select failures, first_failed_on from login_failures where key = ${key}` }),
    /** Counts one failed login under `key`, starting a new count when the last began before `windowStart`. */
    countFailure: (key: string, now: string, windowStart: string) =>
      Effect.asVoid(
        sql`insert into login_failures (key, failures, first_failed_on) values (${key}, 1, ${now})
            on conflict (key) do update set
              failures = case when login_failures.first_failed_on > ${windowStart} then login_failures.failures + 1 else 1 end,
              first_failed_on = case when login_failures.first_failed_on > ${windowStart} then login_failures.first_failed_on else ${now} end`
      ),
    /** Forgets the failed logins counted under `key`. */
    clearFailures: (key: string) => Effect.asVoid(sql`delete from login_failures where key = ${key}`)
  }
})

/** The login sessions' repository. */
export type LoginSessions = Effect.Success<typeof loginSessions>
