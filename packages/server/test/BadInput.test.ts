// Bad input at the HTTP layer: ids that no resource can have, bodies too deep, not JSON, or of another media
// type, and methods a path does not take. Each is a 4xx with the service's JSON error body, never a 5xx.
import { test as propTest } from "@fast-check/vitest"
import fc from "fast-check"
import { describe, expect, test } from "vitest"
import { maxBodyItems } from "../src/wire/Limits.ts"
import { isJsonContentType, jsonDepth, maxJsonDepth } from "../src/http/RequestBody.ts"
import { backends, useService } from "./Service.ts"
import { entrypointBody, jobBody, newJob, registerWorld } from "./Fixtures.ts"

const problem = { error: expect.any(String), message: expect.any(String), detail: expect.any(Array) }

const nested = (depth: number): unknown => (depth === 0 ? 1 : [nested(depth - 1)])

propTest.prop([fc.integer({ min: 0, max: 300 }), fc.string()])("jsonDepth counts the nesting of arrays and objects, never brackets inside strings", (depth, text) => {
  expect(jsonDepth(JSON.stringify({ text, inner: nested(depth) }))).toBe(depth + 1)
  expect(jsonDepth(JSON.stringify(text))).toBe(0)
})

test("a Content-Type is JSON when it is application/json or +json, with any parameters; none is taken as JSON", () => {
  for (const header of [undefined, "", "application/json", "Application/JSON; charset=utf-8", "application/merge-patch+json"]) expect(isJsonContentType(header)).toBe(true)
  for (const header of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx"]) expect(isJsonContentType(header)).toBe(false)
})

describe.each(backends)("bad input over HTTP on %s", (backend) => {
  const service = useService(backend)

  test.each([
    ["0x10", 400, "InvalidRequest"],
    ["1.0", 400, "InvalidRequest"],
    ["1e0", 400, "InvalidRequest"],
    ["%201", 400, "InvalidRequest"],
    ["01", 400, "InvalidRequest"],
    ["+1", 400, "InvalidRequest"],
    ["-1", 400, "InvalidRequest"],
    ["0", 400, "InvalidRequest"],
    ["2147483648", 404, "ResourceNotFound"],
    ["9007199254740991", 404, "ResourceNotFound"],
    ["99999999999999999999", 404, "ResourceNotFound"]
  ] as const)(
    "the id %s is refused with %i %s on every kind of endpoint, never 5xx",
    async (id, status, error) => {
      const { alice } = service()
      const { job, world } = await newJob(alice, `id-${id}`)
      for (const [method, path, body] of [
        ["GET", `/jobs/${id}`, undefined],
        ["GET", `/experiments/${id}`, undefined],
        ["POST", `/jobs/${id}/log`, { data: [{ severity: "INFO", loggerName: "x", message: "m" }] }],
        ["PUT", `/experiments/${world.experiment}/jobs/${id}/status`, { status: "started" }],
        ["PUT", `/experiments/${id}/jobs/${job.id}/status`, { status: "started" }],
        ["GET", `/jobs/${id}/metrics/loss/snapshots`, undefined]
      ] as const) {
        const answer = await alice(method, path, body)
        expect(answer, `${method} ${path}`).toEqual({ status, body: { ...problem, error } })
      }
    }
  )

  test(`JSON nested deeper than ${maxJsonDepth} levels is a 400 naming the limit; as deep as the limit is read`, async () => {
    const { alice } = service()
    const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`
    expect(await alice("POST", "/experiments", deep)).toEqual({ status: 400, body: { ...problem, error: "JsonTooDeep" } })
    const atLimit = JSON.stringify({ name: "deep-ok", description: "x", extra: nested(maxJsonDepth - 1) })
    expect((await alice("POST", "/experiments", atLimit)).status).toBe(200)
  })

  test("a body that is not JSON is a 400, and a body of another media type a 415, each with the JSON error body", async () => {
    const { server } = service()
    const post = (body: string, contentType: string) =>
      fetch(`${server.url}/api/v1/experiments`, { method: "POST", headers: { authorization: "Bearer alice-token-0123456789", "content-type": contentType }, body }).then(
        async (r) => ({ status: r.status, type: r.headers.get("content-type"), body: await r.json() })
      )
    expect(await post("{", "application/json")).toEqual({ status: 400, type: "application/json", body: { ...problem, error: "MalformedJson" } })
    expect(await post('{"name":"x"}', "text/plain")).toEqual({ status: 415, type: "application/json", body: { ...problem, error: "UnsupportedMediaType" } })
    expect(await post("name=x", "application/x-www-form-urlencoded")).toMatchObject({ status: 415 })
  })

  test("NUL in a path or query parameter is a 400 naming it, and no encoded surrogate is a database error", async () => {
    const { alice } = service()
    const { job } = await newJob(alice, "nul-params")
    for (const path of [`/jobs/${job.id}/metrics/a%00b/snapshots`, "/jobs?search=%00", `/jobs/${job.id}/metrics/%ED%A0%80/snapshots`, "/jobs?search=%ED%A0%80"]) {
      const answer = await alice("GET", path)
      expect(answer.status, path).toBeLessThan(500)
    }
    expect(await alice("GET", "/jobs?search=%00")).toEqual({ status: 400, body: { ...problem, error: "InvalidRequest" } })
    expect((await alice("GET", `/jobs/${job.id}/metrics/a%00b/snapshots`)).body.detail[0]).toMatchObject({ part: "path", path: "name" })
  })

  test("a method a path does not take is a 405 with the JSON error body naming the allowed ones", async () => {
    const { alice } = service()
    for (const [method, path] of [["PATCH", "/jobs/1"], ["DELETE", "/experiments"], ["PUT", "/jobs/1/log"]] as const) {
      const answer = await alice(method, path)
      expect(answer, `${method} ${path}`).toEqual({ status: 405, body: { ...problem, error: "MethodNotAllowed" } })
    }
  })

  // JSON nested inside a string: the body's own nesting check sees one string. Deep enough, the parsed value broke
  // every walk after the parse: the creation answered 500 (sometimes with the job committed) and every list of the
  // group answered 500 from then on.
  test.each([
    ["mapping", (d: number) => `${'{"a":'.repeat(d)}1${"}".repeat(d)}`],
    ["list", (d: number) => `${"[".repeat(d)}${"]".repeat(d)}`]
  ] as const)("a %s value nested deeper than the bound is a 400 naming it, nothing is stored, and every list still answers", async (type, nestedText) => {
    const { alice } = service()
    const world = await registerWorld(alice, `deep-${type}`)
    const body = entrypointBody(`deep-${type}-ep`, [world.queue])
    const entrypoint = await alice("POST", "/entrypoints", { ...body, parameters: [...body.parameters, { name: "deep", type }] })
    expect(entrypoint.status).toBe(200)
    expect((await alice("POST", `/experiments/${world.experiment}/entrypoints`, { ids: [entrypoint.body.id] })).status).toBe(200)
    const jobsBefore = (await alice("GET", "/jobs")).body.totalNumResults
    for (const depth of [maxJsonDepth + 1, 4106, 4107, 5000]) {
      const value = nestedText(depth)
      const answer = await alice("POST", `/experiments/${world.experiment}/jobs`, jobBody(entrypoint.body.id, world.queue, { values: { data_dir: "/d", deep: value } }))
      expect(answer, `depth ${depth}`).toEqual({ status: 400, body: { ...problem, error: "ValueTooDeep" } })
      expect(answer.body.detail[0]).toMatchObject({ parameter: "deep", type, limit: maxJsonDepth, length: value.length })
      expect(answer.body.message).toContain(`${value.length} characters`)
    }
    for (const path of ["/jobs", `/experiments/${world.experiment}/jobs`]) {
      const list = await alice("GET", path)
      expect(list.status, path).toBe(200)
    }
    expect((await alice("GET", "/jobs")).body.totalNumResults).toBe(jobsBefore)
    // As deep as the bound is a value like any other.
    const atBound = await alice("POST", `/experiments/${world.experiment}/jobs`, jobBody(entrypoint.body.id, world.queue, { values: { data_dir: "/d", deep: nestedText(maxJsonDepth) } }))
    expect(atBound.status).toBe(200)
    expect((await alice("GET", `/jobs/${atBound.body.id}`)).status).toBe(200)
  })

  test("a list or mapping default nested deeper than the bound is refused when the entrypoint is registered", async () => {
    const { alice } = service()
    const world = await registerWorld(alice, "deep-default")
    const body = entrypointBody("deep-default-ep", [world.queue])
    const deep = `${"[".repeat(5000)}${"]".repeat(5000)}`
    const answer = await alice("POST", "/entrypoints", { ...body, parameters: [...body.parameters, { name: "deep", type: "list", defaultValue: deep }] })
    expect(answer.status).toBe(400)
    expect(JSON.stringify(answer.body)).toContain(`a list of ${deep.length} characters, nests more than ${maxJsonDepth} levels deep`)
  })

  // The YAML parser recursed into any depth, and at some depths took the whole process down while it formatted its
  // error: a 40 KB task graph stopped the service.
  test.each([
    ["a compact block sequence", "- ".repeat(20_000) + "v"],
    ["flow brackets", `a: ${"[".repeat(20_000)}${"]".repeat(20_000)}`],
    ["compact mappings", "? ".repeat(20_000) + "v"]
  ])("a task graph of %s nested past the bound is a 400 before it is parsed, and the service keeps serving", async (_, taskGraph) => {
    const { alice } = service()
    const world = await registerWorld(alice, `yaml-${taskGraph.length}-${taskGraph[0]}`)
    const answer = await alice("POST", "/entrypoints", { ...entrypointBody(`yaml-deep-${taskGraph[0] === "a" ? "flow" : taskGraph[0] === "-" ? "seq" : "map"}`, [world.queue]), taskGraph })
    expect(answer).toEqual({ status: 400, body: { ...problem, error: "InvalidRequest" } })
    expect(answer.body.detail[0]).toMatchObject({ path: "taskGraph", detail: `nests deeper than ${maxJsonDepth} levels` })
    expect((await alice("GET", "/entrypoints")).status).toBe(200)
  })

  test(`an array or object of a body holding more than ${maxBodyItems} items is a 400 naming it, its count and the bound; nothing is stored`, async () => {
    const { alice } = service()
    const before = (await alice("GET", "/experiments")).body.totalNumResults
    const crowded = await alice("POST", "/experiments", { name: "crowded", entrypoints: Array.from({ length: maxBodyItems + 1 }, () => 1) })
    expect(crowded).toEqual({ status: 400, body: { ...problem, error: "TooManyItems" } })
    expect(crowded.body.detail[0]).toMatchObject({ field: "entrypoints", items: maxBodyItems + 1, limit: maxBodyItems })
    const keys = await alice("POST", "/experiments", { name: "crowded-keys", extra: Object.fromEntries(Array.from({ length: maxBodyItems + 1 }, (_, i) => [`k${i}`, i])) })
    expect(keys.body.detail[0]).toMatchObject({ error: "TooManyItems", field: "extra", items: maxBodyItems + 1 })
    expect((await alice("GET", "/experiments")).body.totalNumResults).toBe(before)
    // As many as the bound is read as usual: here, every id names no entrypoint (404).
    expect(await alice("POST", "/experiments", { name: "full", entrypoints: Array.from({ length: maxBodyItems }, () => 424242) })).toMatchObject({ status: 404 })
  })
})

