// Dioptra's users, auth and groups endpoints answered field by field over HTTP on PGlite: a group's members and their
// permissions, the logged-in user's times, which subject a login limit names, a login that clears its user's failed
// tries, and a logout from one session or from every one.
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import type { JobServer } from "../src/index.ts"
import { client, started, tokens } from "./Fixtures.ts"

const start = Date.UTC(2026, 10, 30, 12, 0, 0)
let now = start
const at = (ms: number) => new Date(ms).toISOString()

/** A cookie-keeping client (a browser's session): its cookie is the last one the service set. */
const browser = (url: string) => {
  let cookie = ""
  return async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url}/api/v1${path}`, {
      method,
      headers: { ...(cookie === "" ? {} : { cookie }), ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const set = response.headers.get("set-cookie")
    if (set !== null) cookie = /Max-Age=0/.test(set) ? "" : (set.split(";")[0] ?? "")
    const text = await response.text()
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
  }
}

const signup = (username: string) => ({ username, email: `${username}@example.org`, password: "correct horse", confirmPassword: "correct horse" })

describe("account routes, answered field by field", () => {
  let server: JobServer
  beforeAll(async () => {
    server = await started({ signup: true, clock: () => now })
  })
  afterAll(async () => {
    await server.close()
  })

  test("a group answers its members, each with a user's read and write and nothing more, and its creation time twice", async () => {
    const anonymous = browser(server.url)
    const made = await anonymous("POST", "/users", signup("gina"))
    expect(made.status).toBe(200)
    const gina = browser(server.url)
    expect((await gina("POST", "/auth/login", { username: "gina", password: "correct horse" })).status).toBe(200)
    const me = await gina("GET", "/users/current")
    const group = me.body.groups[0]
    const read = await gina("GET", `/groups/${group.id}`)
    expect(read.status).toBe(200)
    expect(read.body.lastModifiedOn).toBe(read.body.createdOn)
    const member = read.body.members.find((m: { user: { username: string } }) => m.user.username === "gina")
    expect(member).toEqual({
      user: { id: made.body.id, username: "gina", url: `${server.url}/api/v1/users/${made.body.id}` },
      group: { id: group.id, name: "public", url: `${server.url}/api/v1/groups/${group.id}` },
      permissions: { read: true, write: true, share_read: false, share_write: false, owner: false, admin: false }
    })
    expect((await gina("GET", "/groups")).body.data).toEqual([read.body])
    expect((await gina("GET", `/groups?groupId=${group.id}`)).body).toMatchObject({ totalNumResults: 1, data: [read.body] })
    expect((await gina("GET", `/groups?groupId=${group.id + 1000}`)).body).toMatchObject({ isComplete: true, totalNumResults: 0, data: [] })
    // Another group that exists is not found either, by id or in the list.
    const vision = (await client(server.url, tokens.alice)("GET", "/users/current")).body.groups[0]
    expect(vision).toMatchObject({ name: "vision" })
    expect(await gina("GET", `/groups/${vision.id}`)).toMatchObject({ status: 404, body: { error: "ResourceNotFound" } })
    expect((await gina("GET", `/groups?groupId=${vision.id}`)).body).toMatchObject({ totalNumResults: 0, data: [] })
  })

  test("the logged-in user answers its id, email, groups and the times it was made, modified and last logged in", async () => {
    now = start + 60_000
    const made = await browser(server.url)("POST", "/users", signup("hugo"))
    now = start + 120_000
    const hugo = browser(server.url)
    expect((await hugo("POST", "/auth/login", { username: "hugo", password: "correct horse" })).status).toBe(200)
    const me = await hugo("GET", "/users/current")
    expect(me.body).toEqual({
      id: made.body.id,
      username: "hugo",
      email: "hugo@example.org",
      groups: [{ id: expect.any(Number), name: "public", url: expect.stringMatching(/\/api\/v1\/groups\/\d+$/) }],
      createdOn: at(start + 60_000),
      lastModifiedOn: at(start + 60_000),
      lastLoginOn: at(start + 120_000),
      via: "session"
    })
  })

  test("a login clears its user's failed tries; the address's are kept, and the limit then names the address", async () => {
    now = start + 3_600_000
    await browser(server.url)("POST", "/users", signup("iris"))
    const iris = browser(server.url)
    const wrong = { username: "iris", password: "wrong" }
    for (let i = 0; i < 4; i++) expect((await iris("POST", "/auth/login", wrong)).body.error).toBe("LoginFailed")
    expect((await iris("POST", "/auth/login", { username: "iris", password: "correct horse" })).status).toBe(200)
    // The user's count starts again; the address has 4, and its fifth failure reaches the limit.
    expect((await iris("POST", "/auth/login", wrong)).body.error).toBe("LoginFailed")
    const limited = await iris("POST", "/auth/login", { username: "iris", password: "correct horse" })
    expect(limited.status).toBe(429)
    expect(limited.body.message).toMatch(/^address \S+ had 5 failed logins within 900 s; try again later$/)
  })

  test("the limit on a user names the user", async () => {
    now = start + 2 * 3_600_000
    await browser(server.url)("POST", "/users", signup("jack"))
    const jack = browser(server.url)
    for (let i = 0; i < 5; i++) expect((await jack("POST", "/auth/login", { username: "jack", password: "wrong" })).status).toBe(401)
    const limited = await jack("POST", "/auth/login", { username: "jack", password: "correct horse" })
    expect(limited).toMatchObject({ status: 429, body: { error: "TooManyLoginAttempts", message: 'user "jack" had 5 failed logins within 900 s; try again later' } })
  })

  test("a logout ends its own session; with everywhere=true every session of its user", async () => {
    now = start + 3 * 3_600_000
    await browser(server.url)("POST", "/users", signup("kim"))
    const [one, two, three] = [browser(server.url), browser(server.url), browser(server.url)]
    for (const session of [one, two, three]) expect((await session("POST", "/auth/login", { username: "kim", password: "correct horse" })).status).toBe(200)
    expect((await one("POST", "/auth/logout")).body).toEqual({ username: "kim", status: "Logout successful" })
    expect((await one("GET", "/users/current")).status).toBe(401)
    expect((await two("GET", "/users/current")).status).toBe(200)
    expect((await two("POST", "/auth/logout?everywhere=true")).status).toBe(200)
    expect((await three("GET", "/users/current")).status).toBe(401)
  })
})

describe("sign-up's refusals", () => {
  let server: JobServer
  beforeAll(async () => {
    server = await started({ signup: true })
  })
  afterAll(async () => {
    await server.close()
  })

  test("an unequal confirmation names both fields, and no user is made", async () => {
    const anonymous = browser(server.url)
    const answer = await anonymous("POST", "/users", { ...signup("lena"), confirmPassword: "other" })
    expect(answer).toMatchObject({ status: 400, body: { error: "FieldsDiffer", message: "confirmPassword must equal password", detail: [{ error: "FieldsDiffer", field: "confirmPassword", other: "password" }] } })
    expect((await anonymous("POST", "/auth/login", { username: "lena", password: "correct horse" })).status).toBe(401)
  })

  test("a username taken is a 409 naming the user's username and its value", async () => {
    const anonymous = browser(server.url)
    expect((await anonymous("POST", "/users", signup("mona"))).status).toBe(200)
    const again = await anonymous("POST", "/users", { ...signup("mona"), email: "other@example.org" })
    expect(again).toMatchObject({ status: 409, body: { error: "AlreadyExists", detail: [{ error: "AlreadyExists", resource: "user", field: "username", value: "mona" }] } })
  })

  test("the users list links its pages under /users, and a user not in the caller's group is a user not found", async () => {
    const anonymous = browser(server.url)
    for (const name of ["nora", "otto"]) expect((await anonymous("POST", "/users", signup(name))).status).toBe(200)
    const nora = browser(server.url)
    expect((await nora("POST", "/auth/login", { username: "nora", password: "correct horse" })).status).toBe(200)
    const first = await nora("GET", "/users?pageLength=1")
    expect(first.body.next).toBe(`${server.url}/api/v1/users?pageLength=1&index=1`)
    const missing = await nora("GET", "/users/999999")
    expect(missing).toMatchObject({ status: 404, body: { error: "ResourceNotFound", detail: [{ resource: "user", id: "999999" }] } })
  })
})
