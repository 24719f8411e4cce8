// Which pages to ask for to read a whole list at once: the API pages at most 100 items, so a long list is read
// as many windows fetched side by side.

/** A window of a list: where it starts and how many items it asks for. */
export interface Window {
  readonly index: number
  readonly pageLength: number
}

/** The windows that cover items `from` up to `total`, each at most `size` long, in order. */
export const windowsFrom = (from: number, total: number, size: number): ReadonlyArray<Window> => {
  const out: Array<Window> = []
  for (let index = from; index < total; index += size) out.push({ index, pageLength: Math.min(size, total - index) })
  return out
}

/** Runs `task` on each item with at most `limit` running at once; the results in the items' order. */
export const mapLimited = async <A, B>(items: ReadonlyArray<A>, limit: number, task: (item: A) => Promise<B>): Promise<ReadonlyArray<B>> => {
  const results: Array<B> = new Array<B>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      results[i] = await task(items[i] as A)
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker))
  return results
}
