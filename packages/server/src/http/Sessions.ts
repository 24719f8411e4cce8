// Login sessions: the cookie holds a random token; the database keeps only its SHA-256, the user and the expiry.
import { createHash, randomBytes } from "node:crypto"
import { Effect, Option } from "effect"
import { loginSessions } from "../store/LoginSessions.ts"

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
export const sessionUser = (token: string, now: string) =>
  Effect.flatMap(loginSessions, (sessions) => Effect.map(sessions.user({ tokenHash: tokenHash(token), now }), Option.getOrUndefined))

/** Stores a new session for a user, expiring `sessionSeconds` after `now`. */
export const openSession = (userId: number, token: string, now: string) => {
  const expires = new Date(Date.parse(now) + sessionSeconds * 1000).toISOString()
  return Effect.flatMap(loginSessions, (sessions) => sessions.open({ tokenHash: tokenHash(token), userId, now, expires }))
}

/** Ends one session, or every session of its user. */
export const closeSession = (token: string, everywhere: boolean) => Effect.flatMap(loginSessions, (sessions) => sessions.close(tokenHash(token), everywhere))

/** The failed logins counted under `key` within the window ending at `now`. */
export const recentFailures = (key: string, now: string) =>
  Effect.flatMap(loginSessions, (sessions) =>
    Effect.map(sessions.failures(key), (found) => {
      const row = Option.getOrUndefined(found)
      if (row === undefined) return 0
      return Date.parse(now) - Date.parse(row.first_failed_on) < failureWindowSeconds * 1000 ? row.failures : 0
    })
  )

/** Counts one failed login under `key`, starting a new window when the last one has passed. */
export const countFailure = (key: string, now: string) =>
  Effect.flatMap(loginSessions, (sessions) => sessions.countFailure(key, now, new Date(Date.parse(now) - failureWindowSeconds * 1000).toISOString()))

/** Forgets the failed logins counted under `key`. */
export const clearFailures = (key: string) => Effect.flatMap(loginSessions, (sessions) => sessions.clearFailures(key))
