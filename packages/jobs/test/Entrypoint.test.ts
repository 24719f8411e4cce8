// The Entrypoint schema: what a task plugin's entrypoint must declare, and which snapshot a job runs.
import { Result, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { Entrypoint, entrypointVersion, maxJsonDepth } from "../src/index.ts"
import { entrypoint, failureOf } from "./Fixtures.ts"

const version = { snapshot: 1, parameters: [], artifactParameters: [], taskGraph: { s: { t: {} } }, command: ["run"] }
const entrypointWith = (change: Record<string, unknown>) => ({ id: 1, name: "e", queues: [], snapshots: [{ ...version, ...change }] })
const refusalText = (schema: Schema.Top & Schema.ConstraintDecoder<unknown>, input: unknown) =>
  String(failureOf(Schema.decodeUnknownResult(schema)(input, { errors: "all" })))

describe("Entrypoint schema", () => {
  it("accepts a minimal entrypoint", () => {
    expect(Result.isSuccess(Schema.decodeUnknownResult(Entrypoint)(entrypointWith({})))).toBe(true)
  })

  it.each([
    ["a parameter declared twice", { parameters: [{ name: "a", type: "string" }, { name: "a", type: "integer" }] }, 'parameter "a" is declared more than once'],
    ["a name both a parameter and an artifact parameter", { parameters: [{ name: "a", type: "string" }], artifactParameters: [{ name: "a", artifactType: "model" }] }, 'parameter "a" is declared more than once'],
    ["an unknown parameter type", { parameters: [{ name: "a", type: "tuple" }] }, 'Expected "string" | "float" | "integer" | "boolean" | "list" | "mapping"'],
    ["no command", { command: [] }, "Expected a value with a length of at least 1"],
    ["more than 124 command items", { command: Array(125).fill("x") }, "Expected a value with a length of at most 124"],
    ["an image over 500 characters", { image: "i".repeat(501) }, "Expected a value with a length of at most 500"],
    ["an empty image", { image: "" }, "Expected a value with a length of at least 1"],
    ["a NUL in a command item", { command: ["run", "a\u0000b"] }, "contains NUL (U+0000) at character 1"]
  ])("refuses %s", (_, change, reason) => {
    expect(refusalText(Entrypoint, entrypointWith(change))).toContain(reason)
  })

  it("refuses a list or mapping default nested deeper than the bound, naming it, and takes one as deep as the bound or of another type", () => {
    const deep = (d: number) => `${"[".repeat(d)}${"]".repeat(d)}`
    const parameters = [
      { name: "deep", type: "list", defaultValue: deep(maxJsonDepth + 1) },
      { name: "deepmap", type: "mapping", defaultValue: `${'{"a":'.repeat(maxJsonDepth + 1)}1${"}".repeat(maxJsonDepth + 1)}` },
      { name: "atBound", type: "list", defaultValue: deep(maxJsonDepth) },
      { name: "text", type: "string", defaultValue: deep(500) },
      { name: "none", type: "list" }
    ]
    const text = refusalText(Entrypoint, entrypointWith({ parameters }))
    expect(text).toContain(`the default of parameter "deep", a list of ${(maxJsonDepth + 1) * 2} characters, nests more than ${maxJsonDepth} levels deep`)
    expect(text).toContain(`the default of parameter "deepmap", a mapping of`)
    for (const fine of ["atBound", "text", "none"]) expect(text).not.toContain(`"${fine}"`)
    expect(Result.isSuccess(Schema.decodeUnknownResult(Entrypoint)(entrypointWith({ parameters: parameters.slice(2) })))).toBe(true)
  })

  it("refuses no snapshots, and a snapshot id given twice", () => {
    expect(refusalText(Entrypoint, { id: 1, name: "e", queues: [], snapshots: [] })).toContain("Expected a value with a length of at least 1")
    expect(refusalText(Entrypoint, { id: 1, name: "e", queues: [], snapshots: [version, version] })).toContain("snapshot 1 appears more than once")
  })

  it("picks the named snapshot, else the highest", () => {
    expect([entrypointVersion(entrypoint)?.snapshot, entrypointVersion(entrypoint, null)?.snapshot, entrypointVersion(entrypoint, 2)?.snapshot, entrypointVersion(entrypoint, 9)]).toEqual([3, 3, 2, undefined])
  })
})
