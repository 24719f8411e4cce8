import { Effect, Schema } from "effect"
import { page, pageWindow, type Page, type PageQuery } from "../wire/Paging.ts"
import { AnswerLimitsService, DefectLog, Links, type QueryValue } from "./RequestServices.ts"
import type { AnswerLimits } from "../wire/Limits.ts"
import { UnreadableItem } from "../wire/ListItem.ts"

/** How a list names its stored rows: the resource they are, and the API path of one by its id. */
export interface RowNames {
  readonly resource: string
  readonly path: (id: number) => string
}

/** A list request's query: its page and the other fields its links repeat. */
export type ListQuery = PageQuery & Readonly<Record<string, QueryValue | undefined>>

/** What a list page needs of its request: its query, a link maker, the answer limits and the defect log. */
export interface ListContext {
  readonly query: ListQuery
  readonly link: (path: string, query?: Readonly<Record<string, QueryValue>>) => string
  readonly limits: AnswerLimits
  readonly log: (line: string) => void
}

const unreadable = (context: ListContext, names: RowNames, id: number, cause: unknown): UnreadableItem => {
  const reason = cause instanceof Error ? cause.message : String(cause)
  context.log(`${names.resource} ${id} is stored in a form the service cannot render (${reason}); it is listed as UnreadableRow: delete it (DELETE ${names.path(id)})`)
  return { id, error: "UnreadableRow", message: `${names.resource} ${id} is stored in a form the service cannot render; delete it and create it again`, url: context.link(names.path(id)) }
}

/** Each stored row rendered as a list item, or, for a row whose rendering throws, its UnreadableItem (logged), so
 * one bad row never breaks its list. */
export const renderRows = <R, A>(context: ListContext, names: RowNames, rows: ReadonlyArray<R>, id: (row: R) => number, render: (row: R) => A): ReadonlyArray<A | UnreadableItem> =>
  rows.map((row) => {
    try {
      return render(row)
    } catch (cause) {
      return unreadable(context, names, id(row), cause)
    }
  })

const idOf = (item: unknown): number | undefined => {
  const id = typeof item === "object" && item !== null && "id" in item ? item.id : undefined
  return typeof id === "number" ? id : undefined
}

// One read window as its page, its links repeating the request's other query fields; it holds at most the
// context's byte budget of items (and always one). With `names`, an item that cannot be written as JSON is answered
// as its UnreadableItem.
const pageFrom = <A>(context: ListContext, path: string, { items, total }: { readonly items: ReadonlyArray<A>; readonly total: number }, names?: RowNames): Page<A | UnreadableItem> => {
  const window = pageWindow(context.query)
  const kept = Object.fromEntries(Object.entries(context.query).filter((e): e is [string, QueryValue] => e[1] !== undefined))
  const linkTo = (index: number) => context.link(path, { ...kept, index, pageLength: window.pageLength })
  if (names === undefined) return page(items, total, window, linkTo, context.limits.pageBytes)
  const fallback = (item: A | UnreadableItem, cause: unknown): A | UnreadableItem => {
    const id = idOf(item)
    if (id === undefined) throw cause
    return unreadable(context, names, id, cause)
  }
  return page<A | UnreadableItem>(items, total, window, linkTo, context.limits.pageBytes, fallback)
}

/** What a list page needs of its request, from the request's services. */
export const listContext = (query: ListQuery): Effect.Effect<ListContext, never, Links | AnswerLimitsService | DefectLog> =>
  Effect.gen(function* () {
    const { link } = yield* Links
    return { query, link, limits: yield* AnswerLimitsService, log: yield* DefectLog }
  })

/** Reads one window of a list with `read` and answers its page. */
export function pageOf<A, E, R>(query: ListQuery, path: string, read: EffectRead<A, E, R>): Effect.Effect<Page<A>, E, R | Links | AnswerLimitsService | DefectLog>
export function pageOf<A, E, R>(query: ListQuery, path: string, read: EffectRead<A, E, R>, names: RowNames): Effect.Effect<Page<A | UnreadableItem>, E, R | Links | AnswerLimitsService | DefectLog>
export function pageOf<A, E, R>(query: ListQuery, path: string, read: EffectRead<A, E, R>, names?: RowNames): Effect.Effect<Page<A | UnreadableItem>, E, R | Links | AnswerLimitsService | DefectLog> {
  return Effect.gen(function* () {
    const context = yield* listContext(query)
    const window = pageWindow(query)
    return pageFrom(context, path, yield* read(window.index, window.pageLength), names)
  })
}

type EffectRead<A, E, R> = (offset: number, limit: number) => Effect.Effect<{ readonly items: ReadonlyArray<A>; readonly total: number }, E, R>
