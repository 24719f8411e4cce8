import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  documentChunkBytes,
  documentChunkPrefix,
  documentChunksKey,
  documentEnv,
  documentFromEnv,
  maxDocumentBytes,
  maxDocumentChunks,
  type JobDocument
} from "../src/index.ts"
import { failureOf, successOf, taskGraph } from "./Fixtures.ts"

const documentWith = (note: string): JobDocument => ({
  experiment: 1,
  entrypoint: 10,
  entrypointSnapshot: 3,
  queue: 100,
  values: { note },
  artifactValues: {},
  swaps: {},
  taskGraph,
  timeoutSeconds: 60
})
const bytesOf = (text: string) => new TextEncoder().encode(text).length
const envKey = /^[A-Za-z_][A-Za-z0-9_]*$/

// Multi-byte characters of every UTF-8 length, so chunk cuts land inside sequences.
const unit = fc.constantFrom("a", "é", "€", "😀", '"', "\\", "\n")
const note = fc.integer({ min: 0, max: 60_000 }).chain((n) => fc.array(unit, { minLength: n, maxLength: n }).map((u) => u.join("")))

describe("documentEnv / documentFromEnv", () => {
  test.prop([note], { numRuns: 40 })("the chunks put back together are the document, each chunk within its byte limit", (text) => {
    const document = documentWith(text)
    const env = successOf(documentEnv(document))
    expect(successOf(documentFromEnv(env))).toEqual(JSON.parse(JSON.stringify(document)))
    const count = Number(env[documentChunksKey])
    expect(Object.keys(env).length).toBe(count + 1)
    for (const key of Object.keys(env)) expect(envKey.test(key) && !key.startsWith("DISPATCH_")).toBe(true)
    for (let i = 0; i < count; i++) expect(bytesOf(env[`${documentChunkPrefix}${i}`] ?? "")).toBeLessThanOrEqual(documentChunkBytes)
  })

  it("carries a document of the largest size in at most the maximum chunks, whatever its characters", () => {
    for (const filler of ["a", "😀", "é"]) {
      const base = bytesOf(JSON.stringify(documentWith("")))
      const text = filler.repeat(Math.floor((maxDocumentBytes - base) / bytesOf(filler)))
      const env = successOf(documentEnv(documentWith(text)))
      expect(Number(env[documentChunksKey])).toBeLessThanOrEqual(maxDocumentChunks)
    }
  })

  it("refuses a document over the limit", () => {
    const base = bytesOf(JSON.stringify(documentWith("")))
    const problem = failureOf(documentEnv(documentWith("a".repeat(maxDocumentBytes - base + 1))))
    expect(problem.message).toBe(
      `the job's values and rendered task graph take ${maxDocumentBytes + 1} bytes as JSON, more than the ${maxDocumentBytes} a container can be given`
    )
  })

  it.each([
    [{}, `${documentChunksKey} is not a count from 1 to ${maxDocumentChunks}`],
    [{ [documentChunksKey]: "11" }, `${documentChunksKey} is not a count from 1 to ${maxDocumentChunks}`],
    [{ [documentChunksKey]: "2", [`${documentChunkPrefix}0`]: "{}" }, `${documentChunkPrefix}1 is missing`],
    [{ [documentChunksKey]: "1", [`${documentChunkPrefix}0`]: "{" }, "the chunks do not join into JSON"]
  ])("cannot read %j", (env, reason) => {
    expect(failureOf(documentFromEnv(env)).reason).toBe(reason)
  })
})
