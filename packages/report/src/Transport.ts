// One POST of a batch to the job service over node:http(s), on a kept-alive connection. A request never rejects:
// no answer (refused connection, dropped connection, slower than the timeout) is an answer without a status. Its
// socket does not keep the process alive unless held: a reporter's sending never keeps training's process running.
import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from "node:http"
import { Agent as HttpsAgent, request as httpsRequest } from "node:https"
import type { Socket } from "node:net"
import type { Target } from "./Settings.ts"

/** What the service answered a batch: its status (none when no answer came), its Retry-After, and its error's name and message. */
export interface Answer {
  readonly status?: number
  readonly retryAfter?: string
  readonly error: string
}

/** Sends batches. */
export interface Transport {
  /** Posts a batch's body under its Idempotency-Key; never rejects. */
  readonly post: (body: string, key: string) => Promise<Answer>
  /** Whether a request in flight keeps the process alive (while flushing), or not (the default). */
  readonly hold: (hold: boolean) => void
  /** Closes the kept-alive connection. */
  readonly close: () => void
}

const readAnswer = (response: IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    response.on("data", (chunk: Buffer) => chunks.push(chunk))
    response.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    response.on("error", reject)
  })

/** The name and message of an error answer's body ({error, message}), or its first 200 characters. */
export const errorOf = (text: string): string => {
  try {
    const answer = JSON.parse(text) as { readonly error?: unknown; readonly message?: unknown }
    return `${String(answer.error ?? "")}: ${String(answer.message ?? "")}`
  } catch {
    return text.slice(0, 200)
  }
}

/** Posts to `target` over node:http(s), each request at most `timeoutMs`. */
export const httpTransport = (target: Target, timeoutMs: number): Transport => {
  const https = target.url.protocol === "https:"
  const agent = https ? new HttpsAgent({ keepAlive: true, maxSockets: 1 }) : new HttpAgent({ keepAlive: true, maxSockets: 1 })
  const send = https ? httpsRequest : httpRequest
  let held = false
  let socket: Socket | undefined
  const post = (body: string, key: string): Promise<Answer> =>
    new Promise((resolve) => {
      let request: ClientRequest
      try {
        request = send(target.url, {
          method: "POST",
          agent,
          headers: {
            authorization: `Bearer ${target.token}`,
            "content-type": "application/json",
            "content-length": Buffer.byteLength(body),
            "idempotency-key": key
          }
        })
      } catch (error) {
        resolve({ error: String(error) })
        return
      }
      request.on("socket", (s: Socket) => {
        socket = s
        if (held) s.ref()
        else s.unref()
      })
      request.setTimeout(timeoutMs, () => request.destroy(new Error(`no answer within ${timeoutMs} ms`)))
      request.on("error", (error) => {
        socket = undefined
        resolve({ error: String(error) })
      })
      request.on("response", (response) => {
        readAnswer(response).then(
          (text) => {
            socket = undefined
            const status = response.statusCode ?? 0
            const retryAfter = response.headers["retry-after"]
            resolve({ status, ...(retryAfter === undefined ? {} : { retryAfter }), error: status >= 300 ? errorOf(text) : "" })
          },
          (error: unknown) => {
            socket = undefined
            resolve({ error: String(error) })
          }
        )
      })
      request.end(body)
    })
  return {
    post,
    hold: (hold) => {
      held = hold
      if (socket !== undefined && !socket.destroyed) {
        if (hold) socket.ref()
        else socket.unref()
      }
    },
    close: () => agent.destroy()
  }
}
