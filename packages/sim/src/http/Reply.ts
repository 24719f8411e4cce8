// Turning the simulator's Outcome into what travels on the socket: an answer (perhaps late), nothing
// at all (the request is held open until the client gives up), or a refusal.
import type { ServerResponse } from "node:http"
import { type ApiResponse, type Outcome, statusBody } from "../Api.ts"

/** Timers the server must cancel when it closes. */
export interface Timers {
  after(ms: number, run: () => void): { cancel(): void }
}

/** Writes a JSON answer. */
export const sendJson = (res: ServerResponse, response: ApiResponse): void => {
  if (res.destroyed || res.headersSent) return
  const text = JSON.stringify(response.body)
  res.writeHead(response.code, {
    ...response.headers,
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(text)
  })
  res.end(text)
}

/**
 * What a refused call gets over HTTP. The connection is already open by the time the call is known, so
 * it cannot be refused as TCP refuses one; cutting it would be a reset, which a client must read as
 * "maybe applied". This is what a proxy in front of an API server answers when its own connection is
 * refused: a definite failure, nothing applied.
 */
export const refusedAnswer: ApiResponse = {
  code: 503,
  body: statusBody(503, "ServiceUnavailable", "error trying to reach the API server: connect: connection refused (nothing was applied)")
}

/**
 * Serves an Outcome: `answer` runs once the (possibly delayed) answer is due, and returns what to
 * send; a refusal is answered at once with `refusedAnswer`.
 */
export const serveOutcome = (
  res: ServerResponse,
  outcome: Outcome,
  timers: Timers,
  answer: (response: ApiResponse) => void
): void => {
  switch (outcome.kind) {
    case "refused":
      answer(refusedAnswer)
      return
    case "unanswered":
      // Held open: the server's close() or the client's own timeout ends it.
      return
    case "answered": {
      const delay = outcome.delayMs ?? 0
      if (delay <= 0) {
        answer(outcome.response)
        return
      }
      const timer = timers.after(delay, () => answer(outcome.response))
      res.on("close", () => timer.cancel())
    }
  }
}
