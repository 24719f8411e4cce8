// Reading a request body with a ceiling: a body over the limit is drained (so the client can read our
// 413 instead of a broken pipe) up to a hard bound, past which the connection is simply cut.
import type { IncomingMessage } from "node:http"

/** The largest body the server accepts, as the real API server's 3 MiB. */
export const maxBodyBytes = 3 * 1024 * 1024

const drainBound = 16 * maxBodyBytes

/** The body as text, or why it was not read. */
export type BodyRead =
  | { readonly kind: "read"; readonly text: string; readonly bytes: Uint8Array }
  | { readonly kind: "tooLarge"; readonly bytes: number }
  | { readonly kind: "aborted" }

/** Reads the whole body of a request, refusing those over `limit` bytes. */
export const readBody = (request: IncomingMessage, limit: number = maxBodyBytes): Promise<BodyRead> =>
  new Promise((resolve) => {
    const chunks: Array<Buffer> = []
    let bytes = 0
    request.on("data", (chunk: Buffer) => {
      bytes += chunk.length
      if (bytes <= limit) chunks.push(chunk)
      else if (bytes > drainBound) request.socket.destroy()
    })
    request.on("end", () => {
      if (bytes > limit) return resolve({ kind: "tooLarge", bytes })
      const whole = Buffer.concat(chunks)
      resolve({ kind: "read", text: whole.toString("utf8"), bytes: whole })
    })
    request.on("error", () => resolve({ kind: "aborted" }))
    request.on("close", () => {
      if (!request.complete) resolve({ kind: "aborted" })
    })
  })
