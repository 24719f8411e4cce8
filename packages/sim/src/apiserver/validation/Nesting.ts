// How deeply a JSON value nests, and the most the simulator takes. The real API server refuses JSON
// nested more than 10,000 deep; the simulator's own recursive steps (copies, pruning, type checks,
// patches) would run out of stack well before that, so it refuses at a lower, documented depth and
// answers 400 instead of failing halfway through a write.
import type { ApiResponse } from "../../Api.ts"
import { badRequest } from "../StatusErrors.ts"

/** The deepest nesting of objects and arrays a request body or a stored object may have. */
export const maxNestingDepth = 512

/**
 * How deep a JSON value nests: 0 for a scalar, 1 for an object or array of scalars. Iterative, so any
 * depth is measured; it stops counting once past `limit`.
 */
export const nestingDepth = (value: unknown, limit: number = Number.POSITIVE_INFINITY): number => {
  if (typeof value !== "object" || value === null) return 0
  let deepest = 0
  // Two parallel stacks rather than a pair per node: every write body is measured, and the pairs were
  // most of what that cost.
  const nodes: Array<object> = [value]
  const depths: Array<number> = [1]
  for (let node = nodes.pop(); node !== undefined; node = nodes.pop()) {
    const here = depths.pop() as number
    if (here > deepest) deepest = here
    if (deepest > limit) return deepest
    for (const child of Object.values(node)) {
      if (typeof child === "object" && child !== null) {
        nodes.push(child)
        depths.push(here + 1)
      }
    }
  }
  return deepest
}

/** True when a value nests deeper than the simulator takes. */
export const nestsTooDeeply = (value: unknown): boolean => nestingDepth(value, maxNestingDepth) > maxNestingDepth

/** 400: a body nested deeper than `maxNestingDepth`. */
export const tooDeeplyNested = (): ApiResponse =>
  badRequest(`the request body could not be decoded: exceeded max depth of ${maxNestingDepth}`)
