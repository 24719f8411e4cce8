import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { chooseSwaps, swapSelections, SwapsInput } from "../src/index.ts"
import { failureOf, successOf, taskGraph } from "./Fixtures.ts"

const pairs = fc.uniqueArray(fc.tuple(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 })), { selector: ([swap]) => swap, maxLength: 5 })

describe("swapSelections", () => {
  test.prop([pairs])("the dictionary, snake-case list and camel-case list forms mean the same selections", (entries) => {
    // Object keys that look like integers come first in JS, so order is compared only as a set.
    const sorted = (list: ReadonlyArray<{ swap: string; alias: string }>) => [...list].sort((a, b) => (a.swap < b.swap ? -1 : a.swap > b.swap ? 1 : 0))
    const expected = sorted(entries.map(([swap, alias]) => ({ swap, alias })))
    const dictionary = Object.fromEntries(entries)
    const snake = entries.map(([swap_name, task_alias]) => ({ swap_name, task_alias }))
    const camel = entries.map(([swapName, taskAlias]) => ({ swapName, taskAlias }))
    for (const input of [dictionary, snake, camel]) {
      const decoded = Schema.decodeUnknownSync(SwapsInput)(input)
      expect(sorted(swapSelections(decoded))).toEqual(expected)
    }
  })

  it("keeps a swap given twice in the list form, so it can be refused", () => {
    expect(swapSelections([{ swap_name: "a", task_alias: "x" }, { swapName: "a", taskAlias: "y" }])).toEqual([
      { swap: "a", alias: "x" },
      { swap: "a", alias: "y" }
    ])
  })

  it("reads no swaps from null or an absent field", () => {
    expect([swapSelections(null), swapSelections(undefined)]).toEqual([[], []])
  })
})

describe("chooseSwaps", () => {
  const select = (...selections: Array<[string, string]>) => chooseSwaps(taskGraph, selections.map(([swap, alias]) => ({ swap, alias })))

  it("accepts exactly one known alias per swap and renders the graph", () => {
    const chosen = successOf(select(["training_method", "method_a"], ["optimizer", "sgd"]))
    expect(chosen.swaps).toEqual({ training_method: "method_a", optimizer: "sgd" })
    expect(chosen.graph["train"]).toEqual({ train_a: { epochs: "$epochs" }, dependencies: ["load"] })
  })

  it.each([
    ["a missing swap", [["training_method", "method_a"]], ["MissingSwap"], ['swap "optimizer" needs a task alias, one of: sgd, adam']],
    [
      "a swap given twice",
      [["training_method", "method_a"], ["optimizer", "sgd"], ["optimizer", "adam"]],
      ["DuplicateSwap"],
      ['swap "optimizer" is selected 2 times (sgd, adam); select it once']
    ],
    [
      "an unknown swap name",
      [["training_method", "method_a"], ["optimizer", "sgd"], ["?optimizer", "sgd"]],
      ["UnknownSwap"],
      [`swap "?optimizer" is not in the entrypoint's task graph; the graph's swaps are: training_method, optimizer`]
    ],
    [
      "an unknown task alias",
      [["training_method", "method_a"], ["optimizer", "rmsprop"]],
      ["UnknownTaskAlias"],
      ['task alias "rmsprop" is not a choice of swap "optimizer" in step "evaluate"; choices: sgd, adam']
    ],
    [
      "an alias one of the steps using the swap lacks",
      [["training_method", "method_c"], ["optimizer", "sgd"]],
      ["UnknownTaskAlias"],
      ['task alias "method_c" is not a choice of swap "training_method" in step "train"; choices: method_a, method_b']
    ],
    [
      "every kind at once",
      [["optimizer", "x"], ["optimizer", "y"], ["nope", "z"]],
      ["DuplicateSwap", "MissingSwap", "UnknownSwap", "UnknownTaskAlias"],
      [
        'swap "optimizer" is selected 2 times (x, y); select it once',
        'swap "training_method" needs a task alias, one of: method_a, method_b',
        `swap "nope" is not in the entrypoint's task graph; the graph's swaps are: training_method, optimizer`,
        'task alias "x" is not a choice of swap "optimizer" in step "evaluate"; choices: sgd, adam'
      ]
    ]
  ] as const)("refuses %s", (_, selections, tags, messages) => {
    const problems = failureOf(select(...(selections as unknown as Array<[string, string]>)))
    expect(problems.map((p) => p._tag)).toEqual(tags)
    expect(problems.map((p) => p.message)).toEqual(messages)
    expect(problems.every((p) => p.status === 400)).toBe(true)
  })

  it("accepts no selections for a graph without swaps, and refuses any", () => {
    const graph = { a: { t: {} } }
    expect(successOf(chooseSwaps(graph, [])).graph).toEqual(graph)
    expect(failureOf(chooseSwaps(graph, [{ swap: "w", alias: "a" }])).map((p) => p.message)).toEqual([
      `swap "w" is not in the entrypoint's task graph; the graph has no swaps`
    ])
  })
})
