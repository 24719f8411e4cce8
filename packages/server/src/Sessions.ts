// Login sessions: the cookie holds a random token; the database keeps only its SHA-256, the user and the expiry.
import { createHash, randomBytes } from "node:crypto"
import type { Sql } from "./Database.ts"

/** The cookie a login session travels in. */
export const sessionCookie = "dispatch_session"

/** How long a session lasts after login, in seconds (12 hours). */
export const sessionSeconds = 12 * 60 * 60

/** How many failed logins a user, or an address, may have within `failureWindowSeconds` before logins are refused. */
export const maxLoginFailures = 5

/** The window failed logins are counted in, in seconds (15 minutes). */
export const failureWindowSeconds = 15 * 60

/** The stored form of a session token. */
export const tokenHash = (token: string): string => createHash("sha256").update(token).digest("hex")

/** A new session token: 32 random bytes, base64url. */
export const newSessionToken = (): string => randomBytes(32).toString("base64url")

/** The `Set-Cookie` value that gives a client its session: HttpOnly, SameSite=Lax, for the API's path, expiring. */
export const sessionCookieHeader = (token: string, path: string): string =>
  `${sessionCookie}=${token}; Path=${path}; HttpOnly; SameSite=Lax; Max-Age=${sessionSeconds}`

/** The `Set-Cookie` value that removes the session cookie. */
export const clearedCookieHeader = (path: string): string => `${sessionCookie}=; Path=${path}; HttpOnly; SameSite=Lax; Max-Age=0`

/** The session token a `Cookie` header carries, if any. */
export const sessionTokenOf = (cookie: string | undefined): string | undefined => {
  for (const part of (cookie ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=")
    if (name === sessionCookie && value.length > 0) return value.join("=")
  }
  return undefined
}

/** A live session's user: id, name and group. */
export interface SessionUser {
  readonly id: number
  readonly username: string
  readonly grp: string
}

/** The user of a session token that has not expired at `now`. */
export const sessionUser = async (sql: Sql, token: string, now: string): Promise<SessionUser | undefined> =>
  (
    await sql.query<SessionUser>(
      `select u.id, u.username, u.grp from sessions s join users u on u.id = s.user_id where s.token_hash = $1 and s.expires_on > $2`,
      [tokenHash(token), now]
    )
  )[0]

/** Stores a new session for a user, expiring `sessionSeconds` after `now`. */
export const openSession = async (sql: Sql, userId: number, token: string, now: string): Promise<void> => {
  const expires = new Date(Date.parse(now) + sessionSeconds * 1000).toISOString()
  await sql.query(`insert into sessions (token_hash, user_id, created_on, expires_on) values ($1, $2, $3, $4)`, [tokenHash(token), userId, now, expires])
  await sql.query(`delete from sessions where expires_on <= $1`, [now])
}

/** Ends one session, or every session of its user. */
export const closeSession = async (sql: Sql, token: string, everywhere: boolean): Promise<void> => {
  if (everywhere) await sql.query(`delete from sessions where user_id = (select user_id from sessions where token_hash = $1)`, [tokenHash(token)])
  else await sql.query(`delete from sessions where token_hash = $1`, [tokenHash(token)])
}

/** The failed logins counted under `key` within the window ending at `now`. */
export const recentFailures = async (sql: Sql, key: string, now: string): Promise<number> => {
  const [row] = await sql.query<{ failures: number; first_failed_on: string }>(`select failures, first_failed_on from login_failures where key = $1`, [key])
  if (row === undefined) return 0
  return Date.parse(now) - Date.parse(row.first_failed_on) < failureWindowSeconds * 1000 ? row.failures : 0
}

/** Counts one failed login under `key`, starting a new window when the last one has passed. */
export const countFailure = async (sql: Sql, key: string, now: string): Promise<void> => {
  const windowStart = new Date(Date.parse(now) - failureWindowSeconds * 1000).toISOString()
  await sql.query(
    `insert into login_failures (key, failures, first_failed_on) values ($1, 1, $2)
     on conflict (key) do update set
       failures = case when login_failures.first_failed_on > $3 then login_failures.failures + 1 else 1 end,
       first_failed_on = case when login_failures.first_failed_on > $3 then login_failures.first_failed_on else $2 end`,
    [key, now, windowStart]
  )
}

/** Forgets the failed logins counted under `key`. */
export const clearFailures = async (sql: Sql, key: string): Promise<void> => {
  await sql.query(`delete from login_failures where key = $1`, [key])
}
