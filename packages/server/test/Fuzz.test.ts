// A seeded fuzz of every operation of the served OpenAPI document: wrong types, huge and negative numbers, NUL
// and invalid UTF-8, deep nesting, wrong content types, wrong methods and other groups' ids. Every answer must
// be below 500, every 4xx must carry the JSON error body, and the service must still answer normally after.
// DISPATCH_FUZZ_RUNS sets how many requests (default 10,000); DISPATCH_FUZZ_SEED replays a run.
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import type { JobServer } from "../src/index.ts"
import { client, newJob, started, tokens, type Client } from "./Fixtures.ts"

const runs = Number(process.env["DISPATCH_FUZZ_RUNS"] ?? 10_000)
const seed = Number(process.env["DISPATCH_FUZZ_SEED"] ?? 20261201)

interface Operation {
  readonly method: string
  readonly path: string
  readonly hasBody: boolean
}

interface Sent {
  readonly method: string
  readonly path: string
  readonly contentType: string | undefined
  readonly body: Uint8Array | undefined
  readonly label: string
}

const text = (value: string) => new TextEncoder().encode(value)

const nested = (depth: number): string => `${"[".repeat(depth)}1${"]".repeat(depth)}`

/** Strings the database must never see unchecked: NUL, lone surrogates, very long ones. */
const fieldHazard = fc.oneof(
  fc.constant("a\u0000b"),
  fc.constant("x\uD800y"),
  fc.constant("\uDFFF"),
  fc.integer({ min: 256, max: 70_000 }).map((n) => "m".repeat(n))
)

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fieldHazard,
  fc.constantFrom(2147483648, 9007199254740991, -1, 0, 1e308, -1e308, 0.5, "1", true, null, [], {}),
  fc.string({ unit: "binary", maxLength: 40 })
)

const idSegment = (ids: ReadonlyArray<number>) =>
  fc.oneof(
    fc.constantFrom(...ids.map(String)),
    fc.constantFrom("0", "-1", "01", "0x10", "1.0", "1e0", "%201", "2147483648", "9007199254740991", "99999999999999999999", "%00", "%FF", "%C3%28", "%E0%A4%A", "abc", ""),
    fc.integer().map(String)
  )

const bodyOf = (hasBody: boolean) =>
  fc.oneof(
    { weight: 5, arbitrary: fc.dictionary(fc.string({ maxLength: 12 }), hostileValue, { maxKeys: 8 }).map((v) => ({ label: "object", body: text(JSON.stringify(v)) })) },
    { weight: 2, arbitrary: hostileValue.map((v) => ({ label: "value", body: text(JSON.stringify(v) ?? "null") })) },
    { weight: 1, arbitrary: fc.integer({ min: 60, max: 6000 }).map((d) => ({ label: `nested ${d}`, body: text(nested(d)) })) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => ({ label: "bytes", body: b })) },
    { weight: 1, arbitrary: fc.constantFrom("{", '{"a":', "[1,]", '"\\ud800"', '{"name":"\\u0000"}').map((t) => ({ label: "broken json", body: text(t) })) },
    { weight: hasBody ? 0 : 1, arbitrary: fc.constant({ label: "none", body: undefined as Uint8Array | undefined }) }
  )

const requestOf = (operations: ReadonlyArray<Operation>, ownIds: ReadonlyArray<number>, otherIds: ReadonlyArray<number>): fc.Arbitrary<Sent> =>
  fc
    .record({
      operation: fc.constantFrom(...operations),
      method: fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH") }),
      id: idSegment([...ownIds, ...otherIds]),
      name: fc.oneof(fc.constant("loss"), fc.string({ maxLength: 20 }).map(encodeURIComponent), fc.constantFrom("%00", "%FF")),
      query: fc.oneof(
        fc.constant(""),
        fc.constantFrom("?index=-1", "?pageLength=100000", "?index=9007199254740993", "?sortBy=color", "?search=%00", "?search=%FF", "?descending=yes", "?index=1e3"),
        // Dioptra's list query as its Python client sends it: a repeated list, Python's booleans, its search language.
        fc.constantFrom(
          "?severity=ERROR&severity=INFO",
          "?severity=ERROR&severity=FATAL",
          "?index=0&index=1",
          "?descending=True&sortBy=logger_name",
          "?search=description%3A*a%3F",
          "?search=%22unterminated",
          "?search=colour%3Ared",
          "?search=%5C",
          "?sortBy=queue&descending=False&groupId=1"
        ),
        fc.dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 10 }), { maxKeys: 3 }).map((q) => `?${new URLSearchParams(q).toString()}`)
      ),
      contentType: fc.constantFrom(undefined, "application/json", "application/json", "text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin1"),
      body: bodyOf(true)
    })
    .map(({ operation, method, id, name, query, contentType, body }) => {
      const path = operation.path.replace(/\{name\}/g, name).replace(/\{[A-Za-z]+\}/g, id)
      return { method: method ?? operation.method, path: `${path}${query}`, contentType, body: body.body, label: body.label }
    })

/** A 5xx the field checks (NUL, lone surrogates, string lengths before the database) are to prevent. */
const fieldCause = (answer: string) => /invalid byte sequence|0x00|Unicode escape|invalid input syntax for type json|index row size|surrogate/i.test(answer)

describe("fuzzing every operation of the OpenAPI document", () => {
  let server: JobServer | undefined
  let alice: Client | undefined
  const own: Array<number> = []
  const other: Array<number> = []
  beforeAll(async () => {
    server = await started({})
    alice = client(server.url, tokens.alice)
    const mine = await newJob(alice, "fuzz-a")
    const theirs = await newJob(client(server.url, tokens.bob), "fuzz-b")
    own.push(mine.job.id, mine.world.experiment, mine.world.entrypoint, mine.world.queue)
    other.push(theirs.job.id, theirs.world.experiment, theirs.world.entrypoint, theirs.world.queue)
  })
  afterAll(async () => {
    await server?.close()
  })

  test(`${runs} generated requests: no 5xx, a JSON error body on every 4xx, and the service still answers`, { timeout: 1_200_000 }, async () => {
    const url = server?.url ?? ""
    const document = (await (await fetch(`${url}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { requestBody?: unknown }>> }
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ method: method.toUpperCase(), path, hasBody: operation.requestBody !== undefined }))
    )
    expect(operations.length).toBeGreaterThan(20)
    const samples = fc.sample(requestOf(operations, own, other), { numRuns: runs, seed })
    const serverErrors: Array<string> = []
    const bareRefusals: Array<string> = []
    const unanswered: Array<string> = []
    // A few at a time: enough to keep the run short, few enough never to look like a load test.
    const inFlight = 8
    for (let start = 0; start < samples.length; start += inFlight) {
      await Promise.all(
        samples.slice(start, start + inFlight).map(async (sent) => {
          const response = await fetch(`${url}/api/v1${sent.path}`, {
            method: sent.method,
            headers: { authorization: `Bearer ${tokens.alice}`, ...(sent.contentType === undefined ? {} : { "content-type": sent.contentType }) },
            ...(sent.body === undefined || sent.method === "GET" ? {} : { body: sent.body })
          }).catch((cause: unknown) => cause as Error)
          if (response instanceof Error) {
            unanswered.push(`${sent.method} ${sent.path} [${sent.label}] -> no answer: ${String((response.cause as Error | undefined)?.message ?? response.message)}`)
            return
          }
          const answer = await response.text()
          const what = `${sent.method} ${sent.path} [${sent.label}] -> ${response.status} ${answer.slice(0, 200)}`
          if (response.status >= 500) serverErrors.push(what)
          else if (response.status >= 400) {
            let body: unknown
            try {
              body = JSON.parse(answer)
            } catch {
              body = undefined
            }
            const shaped = typeof body === "object" && body !== null && "error" in body && "message" in body && "detail" in body
            if (!shaped || !(response.headers.get("content-type") ?? "").includes("application/json")) bareRefusals.push(what)
          }
        })
      )
    }
    const fieldErrors = serverErrors.filter(fieldCause)
    const otherErrors = serverErrors.filter((e) => !fieldCause(e))
    const report = [
      `seed ${seed}, ${samples.length} requests`,
      `5xx from strings reaching the database unchecked (NUL, lone surrogates, lengths; the field checks fix these): ${fieldErrors.length}`,
      ...fieldErrors.slice(0, 10),
      `other 5xx: ${otherErrors.length}`,
      ...otherErrors.slice(0, 10),
      `4xx without the JSON error body: ${bareRefusals.length}`,
      ...bareRefusals.slice(0, 10),
      `requests without an answer: ${unanswered.length}`,
      ...unanswered.slice(0, 10)
    ].join("\n")
    expect(
      { otherErrors: otherErrors.length, bareRefusals: bareRefusals.length, unanswered: unanswered.length, fieldErrors: fieldErrors.length },
      report
    ).toEqual({ otherErrors: 0, bareRefusals: 0, unanswered: 0, fieldErrors: 0 })
    // And afterwards the service still works normally: a new world and job, read back (the fuzz may have
    // deleted or changed the first ones).
    const after = await newJob(alice as Client, "fuzz-after")
    const read = await (alice as Client)("GET", `/jobs/${after.job.id}`)
    expect(read).toMatchObject({ status: 200, body: { id: after.job.id, status: "queued" } })
  })
})
