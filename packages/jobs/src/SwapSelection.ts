import { Result, Schema } from "effect"
import { DuplicateSwap, type SwapProblem } from "./SwapProblem.ts"
import { renderGraph, type TaskGraph } from "./TaskGraph.ts"
import { Text, textLimits } from "./Text.ts"

/** One swap selection: the swap's name without its leading `?`, and the chosen task alias. */
export interface SwapSelection {
  readonly swap: string
  readonly alias: string
}

const SwapWord = Text(textLimits.name)

// One struct for both spellings of a list item, not a union of two: decoding with excess properties
// refused, a union would report each spelling's keys as excess in the other member, so one unknown key
// would come back as several problems.
const SwapListItem = Schema.Struct({
  swap_name: Schema.optionalKey(SwapWord),
  task_alias: Schema.optionalKey(SwapWord),
  swapName: Schema.optionalKey(SwapWord),
  taskAlias: Schema.optionalKey(SwapWord)
}).check(
  Schema.makeFilter((item) => {
    const snake = item.swap_name !== undefined && item.task_alias !== undefined && item.swapName === undefined && item.taskAlias === undefined
    const camel = item.swapName !== undefined && item.taskAlias !== undefined && item.swap_name === undefined && item.task_alias === undefined
    return snake || camel ? undefined : "expected either {swap_name, task_alias} or {swapName, taskAlias}"
  })
)

/** The swaps field as clients send it: the Python client's dictionary, or the REST list (snake or camel case). */
export const SwapsInput = Schema.Union([Schema.Record(SwapWord, SwapWord), Schema.Array(SwapListItem)])
/** The swaps field as clients send it. */
export type SwapsInput = typeof SwapsInput.Type

/** Turns either wire form into one list of selections, keeping duplicates so they can be refused. */
export const swapSelections = (input: SwapsInput | null | undefined): ReadonlyArray<SwapSelection> => {
  if (input === null || input === undefined) return []
  if (!Array.isArray(input)) return Object.entries(input).map(([swap, alias]) => ({ swap, alias }))
  return input.map((item) => ({ swap: item.swap_name ?? item.swapName ?? "", alias: item.task_alias ?? item.taskAlias ?? "" }))
}

/** The swaps a job chose, and its graph rendered with them. */
export interface ChosenSwaps {
  readonly swaps: Readonly<Record<string, string>>
  readonly graph: TaskGraph
}

/** Checks the selections against the graph (exactly one known alias for every swap) and renders it. */
export const chooseSwaps = (
  graph: TaskGraph,
  selections: ReadonlyArray<SwapSelection>
): Result.Result<ChosenSwaps, ReadonlyArray<SwapProblem>> => {
  const aliasesBySwap = new Map<string, Array<string>>()
  for (const { swap, alias } of selections) aliasesBySwap.set(swap, [...(aliasesBySwap.get(swap) ?? []), alias])
  const duplicates = [...aliasesBySwap]
    .filter(([, aliases]) => aliases.length > 1)
    .map(([swap, aliases]) => new DuplicateSwap({ swap, aliases }))
  // A duplicated swap is judged once, on its first alias, so one mistake is one problem.
  const swaps = Object.fromEntries([...aliasesBySwap].map(([swap, aliases]): [string, string] => [swap, aliases[0] ?? ""]))
  const rendered = renderGraph(graph, swaps)
  if (Result.isFailure(rendered)) return Result.fail([...duplicates, ...rendered.failure])
  return duplicates.length === 0 ? Result.succeed({ swaps, graph: rendered.success }) : Result.fail(duplicates)
}
