import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { Result, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { renderGraph, swapChoices, TaskGraph, type Step } from "../src/index.ts"
import { failureOf, successOf, taskGraph } from "./Fixtures.ts"

const name = fc.stringMatching(/^[a-z_][a-z0-9_]{0,6}$/)
const plainKey = fc.string({ maxLength: 6 }).filter((k) => !k.startsWith("?"))
// fast-check's JSON type is wider than Schema.Json only in name: both are plain JSON values.
const json = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Schema.Json>
const plainEntries = fc.dictionary(plainKey, json, { maxKeys: 3 })
const invocation = fc.dictionary(plainKey, json, { minKeys: 1, maxKeys: 2 })

/** A graph whose swaps each offer one fixed alias set wherever they are used, with a valid choice per swap. */
const graphWithChoice = fc
  .dictionary(name, fc.uniqueArray(name, { minLength: 1, maxLength: 3 }), { maxKeys: 3 })
  .chain((aliasesBySwap) => {
    const swaps = Object.keys(aliasesBySwap)
    const swapStep = (swap: string) =>
      fc
        .tuple(fc.tuple(...(aliasesBySwap[swap] ?? []).map((alias) => invocation.map((inv) => [alias, inv] as const))), plainEntries)
        .map(([choices, own]): Step => Object.fromEntries([[`?${swap}`, Object.fromEntries(choices)], ...Object.entries(own)]))
    const step = swaps.length === 0 ? plainEntries : fc.oneof(plainEntries, fc.constantFrom(...swaps).chain(swapStep))
    const chosen = fc.tuple(...swaps.map((swap) => fc.constantFrom(...(aliasesBySwap[swap] ?? [])).map((alias) => [swap, alias] as const)))
    return fc.tuple(fc.dictionary(name, step, { minKeys: 1, maxKeys: 5 }), chosen.map((pairs) => Object.fromEntries(pairs)))
  })
  .map(([graph, chosen]) => {
    const used = swapChoices(graph)
    return { graph, chosen: Object.fromEntries(Object.entries(chosen).filter(([swap]) => used.has(swap))) }
  })

describe("renderGraph", () => {
  test.prop([graphWithChoice])("removes every ? key, keeps every step and every step's own keys", ({ graph, chosen }) => {
    const rendered = successOf(renderGraph(graph, chosen))
    expect(Object.keys(rendered)).toEqual(Object.keys(graph))
    for (const [stepName, step] of Object.entries(graph)) {
      const out = rendered[stepName] ?? {}
      expect(Object.keys(out).some((k) => k.startsWith("?"))).toBe(false)
      for (const [key, value] of Object.entries(step)) if (!key.startsWith("?")) expect(out[key]).toEqual(value)
      const swapKey = Object.keys(step).find((k) => k.startsWith("?"))
      if (swapKey === undefined) expect(out).toEqual(step)
      else {
        const invocation = (step[swapKey] as Record<string, Record<string, unknown>>)[chosen[swapKey.slice(1)] ?? ""] ?? {}
        for (const [key, value] of Object.entries(invocation)) if (!Object.hasOwn(step, key)) expect(out[key]).toEqual(value)
      }
    }
  })

  test.prop([fc.dictionary(name, plainEntries, { maxKeys: 5 })])("a graph without swaps and no selections renders unchanged", (graph) => {
    expect(successOf(renderGraph(graph, {}))).toEqual(graph)
  })

  it("puts the chosen invocation in the swap's place and keeps the step's dependencies", () => {
    expect(successOf(renderGraph(taskGraph, { training_method: "method_b", optimizer: "sgd" }))).toEqual({
      load: { load_dataset: { path: "$data_dir" } },
      train: { train_b: ["$epochs"], dependencies: ["load"] },
      evaluate: { sgd: { lr: "$lr" } },
      report: { report_b: {} }
    })
  })

  it("reports a missing swap, an unused selection and an alias a step lacks, all at once", () => {
    const problems = failureOf(renderGraph(taskGraph, { training_method: "method_c", extra: "x" }))
    expect(problems.map((p) => p.message)).toEqual([
      'swap "optimizer" needs a task alias, one of: sgd, adam',
      `swap "extra" is not in the entrypoint's task graph; the graph's swaps are: training_method, optimizer`,
      'task alias "method_c" is not a choice of swap "training_method" in step "train"; choices: method_a, method_b'
    ])
  })

  it("reports an unknown alias once, naming every step that lacks it", () => {
    const problems = failureOf(renderGraph(taskGraph, { training_method: "method_z", optimizer: "sgd" }))
    expect(problems.map((p) => p.message)).toEqual([
      'task alias "method_z" is not a choice of swap "training_method" in step "train", "report"; choices: method_a, method_b'
    ])
  })

  it("offers only the aliases every step using a swap defines", () => {
    expect([...swapChoices(taskGraph)]).toEqual([
      ["training_method", ["method_a", "method_b"]],
      ["optimizer", ["sgd", "adam"]]
    ])
  })

  it("keeps keys such as __proto__ as data", () => {
    const graph = JSON.parse('{"s":{"?w":{"a":{"__proto__":{"x":1}}}}}') as TaskGraph
    const out = successOf(renderGraph(graph, { w: "a" }))
    expect(Object.getPrototypeOf(out["s"])).toBe(Object.prototype)
    expect(Object.hasOwn(out["s"] ?? {}, "__proto__")).toBe(true)
  })
})

describe("TaskGraph schema", () => {
  const decode = Schema.decodeUnknownResult(TaskGraph)
  it.each([
    [{ s: { "?": { a: {} } } }, 'step "s", swap "?": a swap needs a name after "?"'],
    [{ s: { "?w": {} } }, 'step "s", swap "?w": a swap maps task aliases to task invocations'],
    [{ s: { "?w": ["a"] } }, 'step "s", swap "?w": a swap maps task aliases to task invocations'],
    [{ s: { "?w": { a: "task" } } }, 'step "s", swap "?w", alias "a": a task invocation is a mapping'],
    [{ s: { "?w": { a: { "?v": {} } } } }, 'step "s", swap "?w", alias "a": a swap choice may not contain another swap']
  ])("refuses %j", (graph, reason) => {
    const result = decode(graph, { errors: "all" })
    expect(Result.isFailure(result)).toBe(true)
    expect(String(failureOf(result))).toContain(reason)
  })

  it("accepts the example graph", () => {
    expect(Result.isSuccess(decode(taskGraph))).toBe(true)
  })
})
