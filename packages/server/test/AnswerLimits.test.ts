// A writer cannot make an answer the service cannot send: every string a request writes is bounded, and a
// list page stops at its byte budget, saying so, with a next link that carries on where it stopped.
import { constants } from "node:buffer"
import { readFileSync } from "node:fs"
import { test as propTest } from "@fast-check/vitest"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { defaultLimits, type JobServer } from "../src/index.ts"
import { maxBodyBytes } from "../src/http/ApiServer.ts"
import { oversizedFields } from "../src/wire/Limits.ts"
import { fitToBytes, maxPageLength } from "../src/wire/Paging.ts"
import { client, started, tokens, type Answer } from "./Fixtures.ts"

const limits = { fieldBytes: 4096, pageBytes: 10_000 }

describe("with small limits", () => {
  let server: JobServer | undefined
  beforeAll(async () => {
    server = await started({ limits })
  })
  afterAll(async () => {
    await server?.close()
  })

  test("a list page stops before passing its byte budget and says so; its next links reach every item once", async () => {
    const alice = client(server?.url ?? "", tokens.alice)
    const names = Array.from({ length: 12 }, (_, i) => `big-${i}`)
    for (const name of names) expect((await alice("POST", "/experiments", { name, description: "x".repeat(3000) })).status).toBe(200)
    const seen: Array<string> = []
    let path: string | undefined = "/experiments?pageLength=100"
    let pages = 0
    while (path !== undefined) {
      const answer: Answer = await alice("GET", path)
      expect(answer.status).toBe(200)
      pages++
      expect(Buffer.byteLength(JSON.stringify(answer.body.data))).toBeLessThanOrEqual(limits.pageBytes)
      seen.push(...answer.body.data.map((e: { name: string }) => e.name))
      if (answer.body.isComplete) {
        expect(answer.body.next).toBeUndefined()
        path = undefined
      } else {
        expect(answer.body.byteLimit).toBe(limits.pageBytes)
        expect(answer.body.data.length).toBeLessThan(100)
        path = String(answer.body.next).slice(`${server?.url}/api/v1`.length)
      }
    }
    expect(seen).toEqual(names)
    expect(pages).toBeGreaterThanOrEqual(4)
  })

  test("a field longer than the limit is refused with 413, naming every such field and the limit; nothing is stored", async () => {
    const alice = client(server?.url ?? "", tokens.alice)
    const before = (await alice("GET", "/experiments")).body.totalNumResults
    const answer = await alice("POST", "/experiments", { name: "n".repeat(5000), description: "d".repeat(4097) })
    expect(answer.status).toBe(413)
    expect(answer.body.error).toBe("FieldTooLarge")
    expect(answer.body.detail).toEqual([
      expect.objectContaining({ field: "name", bytes: 5000, limit: 4096 }),
      expect.objectContaining({ field: "description", bytes: 4097, limit: 4096 })
    ])
    expect(answer.body.message).toContain("body field description is 4097 bytes; at most 4096 bytes are accepted")
    expect((await alice("GET", "/experiments")).body.totalNumResults).toBe(before)
  })
})

describe("with the real defaults", () => {
  let server: JobServer | undefined
  beforeAll(async () => {
    server = await started({})
  })
  afterAll(async () => {
    await server?.close()
  })

  test("an 8 MB description is refused, naming the field and the limit", async () => {
    const alice = client(server?.url ?? "", tokens.alice)
    const answer = await alice("POST", "/experiments", { name: "huge", description: "x".repeat(8 * 1024 * 1024 - 100) })
    expect(answer.status).toBe(413)
    expect(answer.body.detail).toEqual([expect.objectContaining({ error: "FieldTooLarge", field: "description", limit: defaultLimits.fieldBytes })])
  })

  test("the longest page the defaults allow (the budget plus one item as large as a request body) serializes with room to spare", () => {
    // One item can be as large as the body that wrote it, and a page always holds one item.
    expect(defaultLimits.pageBytes + maxBodyBytes * 6).toBeLessThan(constants.MAX_STRING_LENGTH)
    expect(defaultLimits.fieldBytes).toBeLessThan(maxBodyBytes)
    expect(maxPageLength).toBe(100)
  })
})

const item = fc.oneof(fc.string({ maxLength: 40 }), fc.dictionary(fc.string({ maxLength: 5 }), fc.string({ maxLength: 30 })))

propTest.prop([fc.array(item, { maxLength: 20 }), fc.integer({ min: 0, max: 400 })])(
  "fitToBytes keeps the longest prefix within the budget, and always the first item",
  (items, budget) => {
    const { kept, cut } = fitToBytes(items, budget)
    expect(items.slice(0, kept.length)).toEqual(kept)
    expect(cut).toBe(kept.length < items.length)
    if (items.length > 0) expect(kept.length).toBeGreaterThanOrEqual(1)
    if (kept.length > 1) expect(Buffer.byteLength(JSON.stringify(kept)) - 2).toBeLessThanOrEqual(budget)
    if (cut) expect(Buffer.byteLength(JSON.stringify(items.slice(0, kept.length + 1))) - 2).toBeGreaterThan(budget)
  }
)

propTest.prop([fc.jsonValue(), fc.integer({ min: 1, max: 64 })])("oversizedFields names exactly the strings and keys over the limit", (body, limit) => {
  const strings: Array<string> = []
  const collect = (v: unknown): void => {
    if (typeof v === "string") strings.push(v)
    else if (Array.isArray(v)) v.forEach(collect)
    else if (typeof v === "object" && v !== null) for (const [k, inner] of Object.entries(v)) Buffer.byteLength(k) > limit ? strings.push(k) : collect(inner)
  }
  collect(body)
  const over = strings.filter((s) => Buffer.byteLength(s) > limit)
  expect(oversizedFields(body, limit).map((f) => f.bytes)).toEqual(over.map((s) => Buffer.byteLength(s)))
})

test("docs/jobs.md states the limits the service runs with and the problems it answers", () => {
  const doc = readFileSync(new URL("../../../docs/jobs.md", import.meta.url), "utf8")
  for (const text of [`${maxBodyBytes / 2 ** 20} MiB`, `${defaultLimits.fieldBytes / 2 ** 10} KiB`, `${defaultLimits.pageBytes / 2 ** 20} MiB of JSON`]) expect(doc).toContain(text)
  for (const name of ["BodyTooLarge", "FieldTooLarge", "BadRequestTarget", "MalformedHttp", "byteLimit", "dispatch-serve.lock"]) expect(doc).toContain(`\`${name}\``)
})
