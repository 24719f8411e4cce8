import { Result, Schema } from "effect"
import { MissingSwap, UnknownSwap, UnknownTaskAlias } from "./SwapProblem.ts"

/** One step of a task graph: a task invocation, its dependencies, or a `?swap` with its choices. */
export type Step = Readonly<Record<string, Schema.Json>>

const swapPrefix = "?"

/** True when a key of a step names a swap. */
export const isSwapKey = (key: string): boolean => key.startsWith(swapPrefix)

const isMapping = (value: Schema.Json): value is { readonly [key: string]: Schema.Json } =>
  typeof value === "object" && value !== null && !Array.isArray(value)

// Reasons the graph cannot be rendered; checked when an entrypoint is decoded, so job creation can trust it.
const stepProblems = (stepName: string, step: Step): Array<string> =>
  Object.entries(step).flatMap(([key, value]) => {
    if (!isSwapKey(key)) return []
    const where = `step "${stepName}", swap "${key}"`
    if (key.length === 1) return [`${where}: a swap needs a name after "?"`]
    if (!isMapping(value) || Object.keys(value).length === 0) return [`${where}: a swap maps task aliases to task invocations`]
    return Object.entries(value).flatMap(([alias, invocation]) =>
      !isMapping(invocation)
        ? [`${where}, alias "${alias}": a task invocation is a mapping`]
        : Object.keys(invocation).some(isSwapKey)
          ? [`${where}, alias "${alias}": a swap choice may not contain another swap`]
          : []
    )
  })

/** An entrypoint's task graph: step names mapped to steps; a step key `?name` is a swap. */
export const TaskGraph = Schema.Record(Schema.String, Schema.Record(Schema.String, Schema.Json)).check(
  Schema.makeFilter((graph) => Object.entries(graph).flatMap(([name, step]) => stepProblems(name, step)))
)
/** An entrypoint's task graph. */
export type TaskGraph = Readonly<Record<string, Step>>

/** Each swap of the graph with the task aliases every step using it offers, in first-seen order. */
export const swapChoices = (graph: TaskGraph): ReadonlyMap<string, ReadonlyArray<string>> => {
  const choices = new Map<string, ReadonlyArray<string>>()
  for (const step of Object.values(graph)) {
    for (const [key, value] of Object.entries(step)) {
      if (!isSwapKey(key) || !isMapping(value)) continue
      const swap = key.slice(swapPrefix.length)
      const aliases = Object.keys(value)
      const known = choices.get(swap)
      choices.set(swap, known === undefined ? aliases : known.filter((alias) => aliases.includes(alias)))
    }
  }
  return choices
}

/** A graph problem met while rendering: a swap with no selection, a selection for no swap, an unknown alias. */
export type RenderProblem = MissingSwap | UnknownSwap | UnknownTaskAlias

// The chosen invocation takes the swap's place and the step's other keys (its dependencies) are kept; a key
// the step sets itself wins over the same key in the invocation. Entries, not assignment, so that a key such
// as "__proto__" stays data.
const renderStep = (step: Step, chosen: Readonly<Record<string, string>>) => {
  const missedSwaps: Array<string> = []
  const swapped: Array<[string, Schema.Json]> = []
  const own: Array<[string, Schema.Json]> = []
  for (const [key, value] of Object.entries(step)) {
    if (!isSwapKey(key)) {
      own.push([key, value])
      continue
    }
    const swap = key.slice(swapPrefix.length)
    if (!Object.hasOwn(chosen, swap) || !isMapping(value)) continue
    const alias = chosen[swap] ?? ""
    const invocation = Object.hasOwn(value, alias) ? value[alias] : undefined
    if (invocation !== undefined && isMapping(invocation)) swapped.push(...Object.entries(invocation))
    else missedSwaps.push(swap)
  }
  return { step: Object.fromEntries([...swapped, ...own]) as Step, missedSwaps }
}

/** Renders the graph without swaps, each replaced by the invocation of its chosen task alias. */
export const renderGraph = (
  graph: TaskGraph,
  chosen: Readonly<Record<string, string>>
): Result.Result<TaskGraph, ReadonlyArray<RenderProblem>> => {
  const choices = swapChoices(graph)
  const problems: Array<RenderProblem> = [...choices]
    .filter(([swap]) => !Object.hasOwn(chosen, swap))
    .map(([swap, aliases]) => new MissingSwap({ swap, choices: aliases }))
  for (const swap of Object.keys(chosen)) {
    if (!choices.has(swap)) problems.push(new UnknownSwap({ swap, known: [...choices.keys()] }))
  }
  const stepsMissing = new Map<string, Array<string>>()
  const rendered = Object.entries(graph).map(([name, step]): [string, Step] => {
    const result = renderStep(step, chosen)
    for (const swap of result.missedSwaps) stepsMissing.set(swap, [...(stepsMissing.get(swap) ?? []), name])
    return [name, result.step]
  })
  for (const [swap, steps] of stepsMissing) {
    problems.push(new UnknownTaskAlias({ swap, alias: chosen[swap] ?? "", steps, choices: choices.get(swap) ?? [] }))
  }
  return problems.length === 0 ? Result.succeed(Object.fromEntries(rendered)) : Result.fail(problems)
}
