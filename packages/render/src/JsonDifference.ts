import { isRecord } from "./Json.ts"

// Start step 8's reasons name the first leaf that differs (`spec.trainer.env[3].value`), not the whole
// field, so a reader sees what changed without diffing two objects by hand.

/** Where two JSON values first differ, in document order, and the values there. */
export interface JsonDifference {
  /** The path from the root: object keys and array indexes. */
  readonly segments: ReadonlyArray<string | number>
  /** The value on the left at that path (undefined when the left has nothing there). */
  readonly left: unknown
  /** The value on the right at that path (undefined when the right has nothing there). */
  readonly right: unknown
}

const plainKey = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/

/** A path as a field reference: `.key` for plain keys, `["odd key"]` for others, `[i]` for indexes. */
export const pathText = (segments: ReadonlyArray<string | number>): string =>
  segments
    .map((s) => (typeof s === "number" ? `[${s}]` : plainKey.test(s) ? `.${s}` : `[${JSON.stringify(s.length > 64 ? `${s.slice(0, 64)}...` : s)}]`))
    .join("")

// One pair of values still to compare, and where it sits: its key under the pair it came from. The path is
// spelled out only for the difference returned, so equal trees (every read-back that matches) allocate
// no path per node.
interface Pending {
  readonly up: Pending | undefined
  readonly key: string | number
  readonly left: unknown
  readonly right: unknown
}

const segmentsOf = (node: Pending): ReadonlyArray<string | number> => {
  const segments: Array<string | number> = []
  for (let at: Pending | undefined = node; at.up !== undefined; at = at.up) segments.push(at.key)
  return segments.reverse()
}

/** The first place, in document order, where two JSON values differ (key order does not matter); undefined
 * when they are equal. A node reached twice (input that is not a tree) counts as a difference there. */
export const firstDifference = (left: unknown, right: unknown): JsonDifference | undefined => {
  const seen = new Set<object>()
  const stack: Array<Pending> = [{ up: undefined, key: "", left, right }]
  while (stack.length > 0) {
    const node = stack.pop()!
    const { left: x, right: y } = node
    if (x === y) continue
    const bothArrays = Array.isArray(x) && Array.isArray(y)
    const bothRecords = isRecord(x) && isRecord(y)
    if ((!bothArrays && !bothRecords) || seen.has(x as object)) return { segments: segmentsOf(node), left: x, right: y }
    seen.add(x as object)
    // Children go on the stack last first, so the first child is examined first.
    if (bothArrays) {
      const xs = x as ReadonlyArray<unknown>
      const ys = y as ReadonlyArray<unknown>
      // Past the shorter array's end, only the first missing item is a difference worth naming.
      const upTo = Math.min(Math.max(xs.length, ys.length), Math.min(xs.length, ys.length) + 1)
      // A pair already equal would be skipped when popped: it is not pushed, which spares a node per
      // equal leaf (most of them, in a read-back that matches).
      for (let i = upTo - 1; i >= 0; i--) if (xs[i] !== ys[i]) stack.push({ up: node, key: i, left: xs[i], right: ys[i] })
    } else {
      const xr = x as Readonly<Record<string, unknown>>
      const yr = y as Readonly<Record<string, unknown>>
      const keys = Object.keys(xr)
      let extra: Array<string> | undefined
      for (const k of Object.keys(yr)) if (!Object.hasOwn(xr, k)) (extra ??= []).push(k)
      if (extra !== undefined) keys.push(...extra.sort())
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!
        const l = Object.hasOwn(xr, key) ? xr[key] : undefined
        const r = Object.hasOwn(yr, key) ? yr[key] : undefined
        if (l !== r) stack.push({ up: node, key, left: l, right: r })
      }
    }
  }
  return undefined
}
