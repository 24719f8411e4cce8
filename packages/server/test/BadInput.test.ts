// Bad input at the HTTP layer: ids that no resource can have, bodies too deep, not JSON, or of another media
// type, and methods a path does not take. Each is a 4xx with the service's JSON error body, never a 5xx.
import { test as propTest } from "@fast-check/vitest"
import fc from "fast-check"
import { describe, expect, test } from "vitest"
import { isJsonContentType, jsonDepth, maxJsonDepth } from "../src/RequestBody.ts"
import { backends, useService } from "./Service.ts"
import { newJob } from "./Fixtures.ts"

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
})
