import { Result, Schema } from "effect"
import { DuplicateSwap, type SwapProblem } from "./SwapProblem.ts"
import { renderGraph, type TaskGraph } from "./TaskGraph.ts"

/** One swap selection: the swap's name without its leading `?`, and the chosen task alias. */
export interface SwapSelection {
  readonly swap: string
  readonly alias: string
}

/** The swaps field as clients send it: the Python client's dictionary, or the REST list (snake or camel case). */
export const SwapsInput = Schema.Union([
  Schema.Record(Schema.String, Schema.String),
  Schema.Array(
    Schema.Union([
      Schema.Struct({ swap_name: Schema.String, task_alias: Schema.String }),
      Schema.Struct({ swapName: Schema.String, taskAlias: Schema.String })
    ])
  )
])
/** The swaps field as clients send it. */
export type SwapsInput = typeof SwapsInput.Type

/** Turns either wire form into one list of selections, keeping duplicates so they can be refused. */
export const swapSelections = (input: SwapsInput | null | undefined): ReadonlyArray<SwapSelection> => {
  if (input === null || input === undefined) return []
  if (!Array.isArray(input)) return Object.entries(input).map(([swap, alias]) => ({ swap, alias }))
  return input.map((item) => ("swap_name" in item ? { swap: item.swap_name, alias: item.task_alias } : { swap: item.swapName, alias: item.taskAlias }))
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
