import pg from "pg"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import type { JobServer } from "../src/index.ts"
import { client, started, tokens } from "./Fixtures.ts"
import { testPostgres, type TestPostgres } from "./TestPostgres.ts"

// A clock the test moves: sessions expire and failed logins are forgotten by the service's own time.
const movable = () => {
  let now = Date.UTC(2026, 10, 30, 12, 0, 0)
  return { clock: () => now, advance: (ms: number) => void (now += ms) }
}

/** A cookie-keeping client, as Python's requests.Session is: every Set-Cookie is kept and sent back. */
const browser = (url: string) => {
  const jar = new Map<string, string>()
  const call = async (method: string, path: string, body?: unknown) => {
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join("; ")
    const response = await fetch(`${url}/api/v1${path}`, {
      method,
      headers: { ...(cookie === "" ? {} : { cookie }), ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const setCookie = response.headers.get("set-cookie")
    if (setCookie !== null) {
      const [pair = ""] = setCookie.split(";")
      const [name = "", ...value] = pair.split("=")
      if (/Max-Age=0/.test(setCookie)) jar.delete(name)
      else jar.set(name, value.join("="))
    }
    const text = await response.text()
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text), setCookie }
  }
  return { call, jar }
}

const signupBody = (username: string, password = "correct horse") => ({ username, email: `${username}@example.org`, password, confirmPassword: password })

describe("users, login sessions and groups", () => {
  let server: JobServer
  let closed: JobServer
  let postgres: TestPostgres
  const time = movable()

  beforeAll(async () => {
    postgres = await testPostgres()
    server = await started({ databaseUrl: postgres.url, signup: true, clock: time.clock })
    closed = await started({})
  })
  afterAll(async () => {
    await server.close()
    await closed.close()
    await postgres.release()
  })

  test("without --signup, users.create is refused with 403 saying so", async () => {
    const answer = await client(closed.url, undefined)("POST", "/users", signupBody("ann"))
    expect(answer.status).toBe(403)
    expect(answer.body).toMatchObject({ error: "SignupDisabled", message: expect.stringContaining("--signup") })
  })

  test("sign-up keeps only a scrypt hash; a taken name is 409 and an unequal confirmation 400", async () => {
    const anonymous = client(server.url, undefined)
    const made = await anonymous("POST", "/users", signupBody("ann"))
    expect(made).toMatchObject({ status: 200, body: { id: expect.any(Number), username: "ann", email: "ann@example.org" } })
    expect((await anonymous("POST", "/users", signupBody("ann"))).body.error).toBe("AlreadyExists")
    const unequal = await anonymous("POST", "/users", { ...signupBody("ben"), confirmPassword: "other" })
    expect(unequal).toMatchObject({ status: 400, body: { error: "FieldsDiffer" } })
    const db = new pg.Client({ connectionString: postgres.url })
    await db.connect()
    const { rows } = await db.query<{ password_hash: string }>(`select password_hash from users where username = 'ann'`)
    await db.end()
    expect(rows[0]?.password_hash).toMatch(/^scrypt:16384:8:1:[0-9a-f]{32}:[0-9a-f]{64}$/)
    expect(rows[0]?.password_hash).not.toContain("correct horse")
  })

  test("login gives an HttpOnly, SameSite=Lax, expiring session cookie that authenticates until logout", async () => {
    await client(server.url, undefined)("POST", "/users", signupBody("cat"))
    const { call } = browser(server.url)
    expect((await call("GET", "/users/current")).status).toBe(401)
    const login = await call("POST", "/auth/login", { username: "cat", password: "correct horse" })
    expect(login.body).toEqual({ username: "cat", status: "Login successful" })
    expect(login.setCookie).toMatch(/^dispatch_session=[A-Za-z0-9_-]{43}; Path=\/api\/v1; HttpOnly; SameSite=Lax; Max-Age=43200$/)
    const me = await call("GET", "/users/current")
    expect(me.body).toMatchObject({ username: "cat", via: "session", groups: [{ id: expect.any(Number), name: "public" }] })
    const groupId = me.body.groups[0].id as number
    const groups = await call("GET", "/groups?index=0&pageLength=10")
    expect(groups.body).toMatchObject({ index: 0, isComplete: true, totalNumResults: 1, data: [{ id: groupId, name: "public" }] })
    expect(groups.body.data[0].members.map((m: { user: { username: string } }) => m.user.username)).toContain("cat")
    expect((await call("GET", `/groups/${groupId}`)).body).toMatchObject({ id: groupId, name: "public" })
    expect((await call("GET", `/groups/${groupId + 1000}`)).status).toBe(404)
    expect((await call("GET", "/groups?search=name:nomatch*")).body.totalNumResults).toBe(0)
    const queue = await call("POST", "/queues", { group: groupId, name: "cats-queue" })
    expect(queue).toMatchObject({ status: 200, body: { name: "cats-queue", group: { id: groupId, name: "public" } } })
    const logout = await call("POST", "/auth/logout?everywhere=False")
    expect(logout.body).toEqual({ username: "cat", status: "Logout successful" })
    expect(logout.setCookie).toContain("Max-Age=0")
    expect((await call("GET", "/users/current")).status).toBe(401)
  })

  test("a session ends when it expires, by the service's clock", async () => {
    await client(server.url, undefined)("POST", "/users", signupBody("dan"))
    const { call } = browser(server.url)
    await call("POST", "/auth/login", { username: "dan", password: "correct horse" })
    expect((await call("GET", "/users/current")).status).toBe(200)
    time.advance(12 * 60 * 60 * 1000 + 1)
    const expired = await call("GET", "/users/current")
    expect(expired).toMatchObject({ status: 401, body: { message: expect.stringContaining("expired") } })
  })

  test("failed logins are limited per user: the sixth try within 15 minutes is 429 even with the right password", async () => {
    await client(server.url, undefined)("POST", "/users", signupBody("eve"))
    const { call } = browser(server.url)
    for (let i = 0; i < 5; i++) expect((await call("POST", "/auth/login", { username: "eve", password: "wrong" })).body.error).toBe("LoginFailed")
    const limited = await call("POST", "/auth/login", { username: "eve", password: "correct horse" })
    expect(limited).toMatchObject({ status: 429, body: { error: "TooManyLoginAttempts" } })
    time.advance(15 * 60 * 1000 + 1)
    expect((await call("POST", "/auth/login", { username: "eve", password: "correct horse" })).status).toBe(200)
  })

  test("an unknown user and a wrong password answer alike", async () => {
    const { call } = browser(server.url)
    const unknown = await call("POST", "/auth/login", { username: "nobody", password: "x" })
    expect(unknown).toMatchObject({ status: 401, body: { error: "LoginFailed", message: 'login as "nobody" failed: wrong username or password' } })
  })

  test("users.get lists the caller's group's users, searchable by username and email, and users.get_by_id reads one", async () => {
    for (const name of ["lister-dee", "lister-eve"]) expect((await client(server.url, undefined)("POST", "/users", signupBody(name))).status).toBe(200)
    const { call } = browser(server.url)
    expect((await call("POST", "/auth/login", { username: "lister-dee", password: "correct horse" })).status).toBe(200)
    const found = await call("GET", "/users?index=0&pageLength=10&search=username:lister-*")
    expect(found.status).toBe(200)
    expect(found.body).toMatchObject({ index: 0, isComplete: true, totalNumResults: 2 })
    const [dee, eve] = found.body.data
    expect(dee).toEqual({ id: expect.any(Number), username: "lister-dee", email: "lister-dee@example.org" })
    expect(eve).toMatchObject({ username: "lister-eve" })
    expect((await call("GET", "/users?search=email:lister-e*")).body).toMatchObject({ totalNumResults: 1, data: [{ username: "lister-eve" }] })
    expect((await call("GET", "/users?search=phone:1")).body).toMatchObject({ error: "InvalidSearch" })
    // Case-sensitive, as upstream's LIKE is on PostgreSQL.
    expect((await call("GET", "/users?search=username:LISTER-*")).body).toMatchObject({ totalNumResults: 0 })
    expect(await call("GET", `/users/${eve.id}`)).toMatchObject({ status: 200, body: { id: eve.id, username: "lister-eve", email: "lister-eve@example.org" } })
    expect((await call("GET", "/users/current")).body).toMatchObject({ username: "lister-dee", via: "session" })
    expect((await call("GET", "/users/999999")).status).toBe(404)
    // Another group's users are neither listed nor read.
    const other = client(server.url, tokens.alice)
    expect((await other("GET", "/users?search=username:lister-*")).body).toMatchObject({ totalNumResults: 0, data: [] })
    expect((await other("GET", `/users/${eve.id}`)).status).toBe(404)
  })

  test("bearer tokens keep working, and say so in users.get_current", async () => {
    const me = await client(server.url, tokens.alice)("GET", "/users/current")
    expect(me.body).toMatchObject({ username: "alice", via: "token", groups: [{ name: "vision", id: expect.any(Number) }] })
  })
})
