// The handlers' runner over the API in process, on PGlite: the links it makes repeat a list's query (a repeated
// parameter repeated), and the settings an environment leaves out take their documented defaults (no sign-up; users
// who sign up join `public`; the default size limits).
import { describe, expect, test } from "vitest"
import { defaultLimits } from "../src/wire/Limits.ts"
import { newJob, tokens } from "./Fixtures.ts"
import { inProcessCaller, inProcessEnvironment } from "./InProcessApi.ts"
import { useMigratedDatabase } from "./TestDatabase.ts"

describe("the handlers' runner", () => {
  const database = useMigratedDatabase("pglite", "handlers")
  const base = inProcessEnvironment(database)
  const caller = inProcessCaller
  const alice = caller(base, tokens.alice)

  test("a page's links repeat its query, a parameter given twice as two; a resource's own link has no query", async () => {
    const { job } = await newJob(alice, "links")
    const records = ["ERROR", "INFO", "ERROR", "DEBUG"].map((severity, i) => ({ severity, loggerName: "l", message: `m${i}` }))
    expect((await alice("POST", `/jobs/${job.id}/log`, { data: records })).status).toBe(200)
    const page = await alice("GET", `/jobs/${job.id}/log?severity=ERROR&severity=INFO&pageLength=2`)
    expect(page.status).toBe(200)
    expect(page.body.next).toBe(`http://test/api/v1/jobs/${job.id}/log?pageLength=2&severity=ERROR&severity=INFO&index=2`)
    expect(page.body.first).toBe(`http://test/api/v1/jobs/${job.id}/log?pageLength=2&severity=ERROR&severity=INFO&index=0`)
    const experiments = await alice("GET", "/experiments")
    expect(experiments.body.data.length).toBeGreaterThan(0)
    for (const experiment of experiments.body.data) expect(experiment.group.url).toBe(`http://test/api/v1/groups/${experiment.group.id}`)
  })

  test("without a sign-up setting nobody signs up; with it alone, users join the public group", async () => {
    const body = { username: "handler-user", email: "u@example.org", password: "correct horse", confirmPassword: "correct horse" }
    expect(await caller(base, undefined)("POST", "/users", body)).toMatchObject({ status: 403, body: { error: "SignupDisabled" } })
    const open = caller(() => ({ ...base(), signup: true }), undefined)
    expect(await open("POST", "/users", body)).toMatchObject({ status: 200, body: { username: "handler-user" } })
    expect(await database().query(`select grp from users where username = 'handler-user'`)).toEqual([{ grp: "public" }])
  })

  test("without limits given, a field is held to the default limit", async () => {
    const at = "x".repeat(defaultLimits.fieldBytes)
    expect((await alice("POST", "/queues", { name: "limits-at", description: at })).status).toBe(200)
    const past = await alice("POST", "/queues", { name: "limits-past", description: `${at}x` })
    expect(past).toMatchObject({ status: 413, body: { error: "FieldTooLarge" } })
    expect(past.body.detail[0]).toMatchObject({ field: "description", limit: defaultLimits.fieldBytes })
  })
})
