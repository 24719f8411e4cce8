// A watch: the events a selection sees, replayed from a resourceVersion (or, without one, the current
// objects as ADDED, as the real server does) and then live. An object entering or leaving the
// selection is seen as ADDED or DELETED. Replayed events are delivered after the caller has the
// watch handle, in order before any live event.
import type { Resource, WatchEvent } from "../../Api.ts"
import { type Selection, selects } from "./Selection.ts"
import { handedOut, present, type ServerContext } from "../store/ServerContext.ts"
import type { StoredChange } from "../store/Store.ts"

/** What one stored change looks like to a selection, if it sees it at all. */
export const eventFor = (resource: Resource, selection: Selection, change: StoredChange, version: string): WatchEvent | undefined => {
  if (change.resource !== resource.plural) return undefined
  const now = selects(selection, change.object)
  const object = handedOut(present(resource, change.object, version))
  if (change.type !== "MODIFIED") return now ? { type: change.type, object } : undefined
  const before = change.previous !== undefined && selects(selection, change.previous)
  if (before && now) return { type: "MODIFIED", object }
  if (now) return { type: "ADDED", object }
  return before ? { type: "DELETED", object } : undefined
}

/** Where a watch starts: after a revision, or from the current state. */
export type WatchStart = { readonly after: number } | { readonly current: true }

/** Starts delivering events; undefined when `start` is older than the change log reaches. */
export const openWatch = (
  context: ServerContext,
  resource: Resource,
  selection: Selection,
  version: string,
  start: WatchStart,
  onEvent: (event: WatchEvent) => void
): { stop(): void } | undefined => {
  let backlog: Array<WatchEvent> = []
  if ("after" in start) {
    const changes = context.store.changesSince(start.after)
    if (changes === undefined) return undefined
    backlog = changes.flatMap((c) => eventFor(resource, selection, c, version) ?? [])
  } else {
    backlog = context.store
      .list(resource.plural, selection.namespace)
      .filter((o) => selects(selection, o))
      .map((o) => ({ type: "ADDED", object: handedOut(present(resource, o, version)) }))
  }
  let stopped = false
  let flushed = false
  const deliver = (event: WatchEvent): void => {
    if (!stopped) onEvent(event)
  }
  const unsubscribe = context.store.subscribe((change) => {
    const event = eventFor(resource, selection, change, version)
    if (event === undefined) return
    if (flushed) deliver(event)
    else backlog.push(event)
  })
  queueMicrotask(() => {
    // Events that arrive while the backlog drains join its end, keeping the order.
    for (let event = backlog.shift(); event !== undefined; event = backlog.shift()) deliver(event)
    flushed = true
  })
  return {
    stop: () => {
      stopped = true
      unsubscribe()
    }
  }
}
