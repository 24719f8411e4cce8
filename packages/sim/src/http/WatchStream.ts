// A watch over HTTP: newline-delimited JSON events on a chunked response, started once the fault plan
// lets the answer through, and stopped when the client leaves, the timeout passes, an ERROR event is
// sent or the server closes.
import type { ServerResponse } from "node:http"
import type { WatchEvent } from "../Api.ts"
import type { Kind } from "../kinds/Kind.ts"
import type { ServedSimulator } from "./ServedSimulator.ts"
import { jsonText } from "./JsonText.ts"
import { serveOutcome, sendJson, type Timers } from "./Reply.ts"
import type { RestCall } from "./RestCall.ts"
import { tableOf } from "./Table.ts"

/** Serves a watch call until the client goes away or its timeoutSeconds pass. */
export const serveWatch = (
  res: ServerResponse,
  simulator: Pick<ServedSimulator, "watch" | "now">,
  resource: Kind,
  call: RestCall,
  timers: Timers
): void => {
  const pending: Array<WatchEvent> = []
  let sink: ((event: WatchEvent) => void) | undefined
  let columnsSent = false
  const encode = (event: WatchEvent): string => {
    const tabular = call.table !== undefined && (event.type === "ADDED" || event.type === "MODIFIED" || event.type === "DELETED")
    const object = tabular
      ? tableOf({ resource, body: event.object, now: simulator.now(), include: call.table ?? "Metadata", withColumns: !columnsSent })
      : event.object
    if (tabular) columnsSent = true
    return `${jsonText({ type: event.type, object })}\n`
  }
  const watch = simulator.watch(call.request, (event) => (sink === undefined ? pending.push(event) : sink(event)))
  res.on("close", () => watch.stop())
  serveOutcome(res, watch.outcome, timers, (response) => {
    if (res.destroyed) return
    if (response.code >= 300) {
      watch.stop()
      sendJson(res, response)
      return
    }
    res.writeHead(200, { "Content-Type": "application/json", "Transfer-Encoding": "chunked", "Cache-Control": "no-cache, private" })
    res.flushHeaders()
    sink = (event) => {
      if (res.destroyed || res.writableEnded) return
      res.write(encode(event))
      // An ERROR event is a watch's last word (the real server closes the stream after it).
      if (event.type === "ERROR") {
        watch.stop()
        res.end()
      }
    }
    for (const event of pending.splice(0)) sink(event)
    if (call.timeoutSeconds !== undefined) {
      const timer = timers.after(call.timeoutSeconds * 1000, () => {
        watch.stop()
        res.end()
      })
      res.on("close", () => timer.cancel())
    }
  })
  if (watch.outcome.kind !== "answered") watch.stop()
}
