// Requests no client library would send, written on a raw socket: each gets a JSON problem answer and the
// service keeps serving.
import { test as propTest } from "@fast-check/vitest"
import fc from "fast-check"
import { Result } from "effect"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import type { JobServer } from "../src/index.ts"
import { parseRequestTarget } from "../src/http/RequestTarget.ts"
import { client, started, tokens } from "./Fixtures.ts"
import { bodyOf, headerOf, rawExchange, statusOf } from "./RawHttp.ts"

/** The status and JSON body of a raw HTTP/1.1 answer. */
const parsed = (answer: string) => ({ status: statusOf(answer), body: JSON.parse(bodyOf(answer)) as unknown })

const problemBody = { error: expect.any(String), message: expect.any(String), detail: expect.any(Array) }

let server: JobServer | undefined
beforeAll(async () => {
  server = await started({})
})
afterAll(async () => {
  await server?.close()
})
const url = () => server?.url ?? ""

describe("hostile request lines", () => {

  test.each(["//", "///", "//@", "//%", "//[::1", "http://", "http://[::1", "*", "/api/v1/jobs/%", "/api/v1//"])("GET %s is answered with a JSON problem, and the service keeps serving", async (target) => {
    const answer = parsed(await rawExchange(url(), `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`))
    expect(answer.status).toBeGreaterThanOrEqual(400)
    expect(answer.status).toBeLessThan(500)
    expect(answer.body).toEqual(problemBody)
    expect((await client(url(), tokens.alice)("GET", "/experiments")).status).toBe(200)
  })

  test("a target that is not a URL is a 400 naming it", async () => {
    const answer = parsed(await rawExchange(url(), "GET http:// HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
    expect(answer).toEqual({ status: 400, body: { ...problemBody, error: "BadRequestTarget" } })
    expect(JSON.stringify(answer.body)).toContain('"target":"http://"')
  })

  test.each(["GARBAGE\r\n\r\n", "GET / HTTP/1.1\r\nHost: x\r\nbad header\r\n\r\n", "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n"])(
    "malformed HTTP %j gets a 400 with a JSON problem body",
    async (raw) => {
      const answer = parsed(await rawExchange(url(), raw))
      expect(answer).toEqual({ status: 400, body: { ...problemBody, error: "MalformedHttp" } })
      expect((await client(url(), tokens.alice)("GET", "/experiments")).status).toBe(200)
    }
  )
})

describe("methods the API does not serve", () => {

  // node:http hands CONNECT to 'connect' listeners only, and with none closed the connection without a word.
  test.each([
    ["CONNECT /api/v1 HTTP/1.1", "GET"],
    ["CONNECT /api/v1/jobs HTTP/1.1", "GET"],
    ["CONNECT /api/v1/jobs/1 HTTP/1.1", "GET, DELETE"],
    ["CONNECT example.com:443 HTTP/1.1", ""],
    ["FOO /api/v1/experiments HTTP/1.1", "GET, POST"],
    ["OPTIONS /api/v1/experiments HTTP/1.1", "GET, POST"],
    ["TRACE /api/v1/jobs HTTP/1.1", "GET"],
    ["PATCH /api/v1/jobs/1 HTTP/1.1", "GET, DELETE"],
    ["POST /healthz HTTP/1.1", "GET"],
    ["DELETE /api/v1 HTTP/1.1", "GET"],
    ["PUT /api/v1/openapi.json HTTP/1.1", "GET"]
  ])("%s is a JSON 405 with Allow: %s, and the service keeps serving", async (line, allow) => {
    const raw = await rawExchange(url(), `${line}\r\nHost: x\r\nAuthorization: Bearer ${tokens.alice}\r\nConnection: close\r\n\r\n`)
    expect(parsed(raw)).toEqual({ status: 405, body: { ...problemBody, error: "MethodNotAllowed" } })
    expect(headerOf(raw, "content-type")).toBe("application/json")
    expect(headerOf(raw, "allow")).toBe(allow)
    expect((await client(url(), tokens.alice)("GET", "/experiments")).status).toBe(200)
  })

  test("a method on a path nothing serves is a 404, whatever the method", async () => {
    for (const method of ["CONNECT", "FOO", "POST"]) {
      const raw = await rawExchange(url(), `${method} /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)
      expect(parsed(raw).status, method).toBe(method === "CONNECT" ? 405 : 404)
    }
  })
})

propTest.prop([fc.string({ unit: "binary" })])("reading any request target never throws; a path keeps everything before its query", (target) => {
  const read = parseRequestTarget(target)
  if (target.startsWith("/")) {
    expect(Result.isSuccess(read) && read.success.pathname).toBe(target.split("#")[0]?.split("?")[0])
  } else if (Result.isFailure(read)) {
    expect(read.failure.status).toBe(400)
  }
})
