import { maxSeriesColumns } from "@dispatch/jobs"
import { Schema } from "effect"

/** The most items one page holds. */
export const maxPageLength = 100

/** How many bytes of JSON one page's items may take by default: with one item over it at most (an item is
 * bounded by the request body limit), a page stays far below the longest string a JSON answer can be. */
export const defaultPageBytes = 4 * 1024 * 1024

/** The page a list request asks for when it names none. */
export const defaultPageLength = 20

const wholeNumber = (min: number, max: number) =>
  Schema.FiniteFromString.check(Schema.isInt(), Schema.isGreaterThanOrEqualTo(min), Schema.isLessThanOrEqualTo(max))

/** The paging part of a list's query string: where the page starts and how long it is (Dioptra's names). */
export const PageQuery = Schema.Struct({
  index: Schema.optionalKey(wholeNumber(0, Number.MAX_SAFE_INTEGER)),
  pageLength: Schema.optionalKey(wholeNumber(1, maxPageLength))
})
/** The paging part of a list's query string. */
export type PageQuery = typeof PageQuery.Type

/** The most values one page of a metric's snapshots holds: a chart reads thousands of small items at once. */
export const maxMetricPageLength = 10_000

/** The paging query of a metric's snapshots: as `PageQuery`, with pages up to `maxMetricPageLength` long; with
 * `columns`, the list paged is the series cut to what a chart that many pixels wide draws (`downsampleSeries`). */
export const MetricPageQuery = Schema.Struct({
  index: PageQuery.fields.index,
  pageLength: Schema.optionalKey(wholeNumber(1, maxMetricPageLength)),
  columns: Schema.optionalKey(wholeNumber(1, maxSeriesColumns))
})

/** A page to read: the offset of its first item and how many items at most. */
export interface PageWindow {
  readonly index: number
  readonly pageLength: number
}

/** The window a query asks for, defaults filled in. */
export const pageWindow = (query: PageQuery): PageWindow => ({
  index: query.index ?? 0,
  pageLength: query.pageLength ?? defaultPageLength
})

/** One page of a list, as Dioptra answers: the items, the total, and links to the first, previous and next pages. */
export const pageOf = <A extends Schema.Top>(item: A) =>
  Schema.Struct({
    index: Schema.Int,
    isComplete: Schema.Boolean,
    totalNumResults: Schema.Int,
    first: Schema.String,
    prev: Schema.optionalKey(Schema.String),
    next: Schema.optionalKey(Schema.String),
    /** Present when the page stopped before pageLength items because the next one would pass this many bytes. */
    byteLimit: Schema.optionalKey(Schema.Int),
    data: Schema.Array(item)
  })

/** One page of a list. */
export interface Page<A> {
  readonly index: number
  readonly isComplete: boolean
  readonly totalNumResults: number
  readonly first: string
  readonly prev?: string
  readonly next?: string
  readonly byteLimit?: number
  readonly data: ReadonlyArray<A>
}

/** The longest prefix of `items` whose JSON takes at most `budget` bytes, and at least the first item, so a
 * page always moves on; `cut` when items were left out. An item that cannot be written as JSON is replaced by
 * what `unwritable` makes of it (by default the failure is thrown). */
export const fitToBytes = <A>(
  items: ReadonlyArray<A>,
  budget: number,
  unwritable: (item: A, cause: unknown) => A = (_, cause) => {
    throw cause
  }
): { readonly kept: ReadonlyArray<A>; readonly cut: boolean } => {
  const kept: Array<A> = []
  let used = 0
  for (const [i, item] of items.entries()) {
    let text: string
    let written = item
    try {
      text = JSON.stringify(item) ?? "null"
    } catch (cause) {
      written = unwritable(item, cause)
      text = JSON.stringify(written) ?? "null"
    }
    used += Buffer.byteLength(text) + (i === 0 ? 0 : 1)
    if (used > budget && i > 0) return { kept, cut: true }
    kept.push(written)
  }
  return { kept, cut: false }
}

/** Wraps the items of a window in a page, with the link to each neighbouring window that has items; with a
 * byte budget, the page ends before the item that would pass it and says so in `byteLimit`. */
export const page = <A>(
  items: ReadonlyArray<A>,
  total: number,
  window: PageWindow,
  linkTo: (index: number) => string,
  budget = Number.POSITIVE_INFINITY,
  unwritable?: (item: A, cause: unknown) => A
): Page<A> => {
  const { kept: data, cut } = fitToBytes(items, budget, unwritable)
  const isComplete = window.index + data.length >= total
  const prevIndex = Math.max(0, window.index - window.pageLength)
  return {
    index: window.index,
    isComplete,
    totalNumResults: total,
    first: linkTo(0),
    ...(window.index > 0 ? { prev: linkTo(prevIndex) } : {}),
    ...(isComplete ? {} : { next: linkTo(window.index + data.length) }),
    ...(cut ? { byteLimit: budget } : {}),
    data
  }
}
