// Turning the simulator's Outcome into what travels on the socket: an answer (perhaps late), nothing
// at all (the request is held open until the client gives up), or a refusal.
import { STATUS_CODES, type ServerResponse } from "node:http"
import type { Duplex } from "node:stream"
import { type ApiResponse, type Outcome, statusBody } from "../Api.ts"
import { jsonText } from "./JsonText.ts"

/** Timers the server must cancel when it closes. */
export interface Timers {
  after(ms: number, run: () => void): { cancel(): void }
}

/** Writes a JSON answer. */
export const sendJson = (res: ServerResponse, response: ApiResponse): void => {
  if (res.destroyed || res.headersSent) return
  const text = jsonText(response.body)
  res.writeHead(response.code, {
    ...response.headers,
    "Content-Type": "application/json",
    "Content-Length": Buffer.byteLength(text)
  })
  res.end(text)
}

/**
 * Writes a JSON answer straight onto a socket Node has handed over (a CONNECT or an upgrade, which skip
 * the usual response object), then closes it: the protocol switch the client asked for never happens.
 */
export const sendJsonOnSocket = (socket: Duplex, method: string | undefined, response: ApiResponse): void => {
  const text = JSON.stringify(response.body)
  socket.on("error", () => socket.destroy())
  // Closed once written: a client that keeps its end open must not hold the server's close().
  socket.on("finish", () => socket.destroy())
  socket.end(
    `HTTP/1.1 ${response.code} ${STATUS_CODES[response.code] ?? ""}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${method === "HEAD" ? "" : text}`
  )
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
      // Cut: the connection resets with no status line. Else held open: the server's close() or the client's own
      // timeout ends it.
      if (outcome.cut === true) res.destroy()
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
