import { page, pageWindow, type Page, type PageQuery } from "./Paging.ts"
import type { QueryValue, RequestContext } from "./Route.ts"

/** Reads one window of a list and wraps it in a page whose links repeat the request's other query fields; the
 * page holds at most the context's byte budget of items (and always one). */
export const listPage = async <A>(
  context: RequestContext<unknown, PageQuery & Readonly<Record<string, QueryValue | undefined>>, unknown>,
  path: string,
  read: (offset: number, limit: number) => Promise<{ readonly items: ReadonlyArray<A>; readonly total: number }>
): Promise<Page<A>> => {
  const window = pageWindow(context.query)
  const { items, total } = await read(window.index, window.pageLength)
  const kept = Object.fromEntries(Object.entries(context.query).filter((e): e is [string, QueryValue] => e[1] !== undefined))
  return page(items, total, window, (index) => context.link(path, { ...kept, index, pageLength: window.pageLength }), context.limits.pageBytes)
}
