import { createServer, type IncomingMessage, type Server } from "node:http"
import type { Duplex } from "node:stream"
import { handleApiRequest, type ApiEnvironment } from "./ApiHandler.ts"
import { errorBody } from "./ErrorBody.ts"
import { idempotencyHeader } from "./IdempotencyKey.ts"
import { BodyTooLarge, InternalError, MalformedHttp, refusal } from "./ServiceProblem.ts"

/** The largest request body accepted, in bytes. */
export const maxBodyBytes = 8 * 1024 * 1024

const readBody = (request: IncomingMessage): Promise<string | undefined> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    request.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size <= maxBodyBytes) chunks.push(chunk)
    })
    request.on("end", () => resolve(size > maxBodyBytes ? undefined : Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

const jsonHead = (text: string) => ({ "content-type": "application/json", "content-length": Buffer.byteLength(text) })

// The last resort when a handler threw or its answer cannot be serialized: the service's fault, said as such.
const internalError = (cause: unknown): string =>
  JSON.stringify(errorBody(refusal(new InternalError({ reason: cause instanceof Error ? cause.message : String(cause) }))))

// Node's parser refused the request (bad request line, header, chunking): answer once on the raw socket and close,
// as node would, but with the service's JSON problem body. A socket already gone gets nothing.
const answerClientError = (error: Error & { readonly code?: string }, socket: Duplex): void => {
  if (error.code === "ECONNRESET" || !socket.writable) {
    socket.destroy()
    return
  }
  const problem = new MalformedHttp({ code: error.code ?? "unknown", reason: error.message })
  const text = JSON.stringify(errorBody(refusal(problem)))
  const reason = problem.status === 431 ? "Request Header Fields Too Large" : "Bad Request"
  socket.end(`HTTP/1.1 ${problem.status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`)
}

/** A node:http server answering the API; the environment's base URL is filled in once it listens. Nothing a
 * client sends can throw out of it: every request ends in an answer or a closed connection. */
export const listen = (env: Omit<ApiEnvironment, "baseUrl">, host: string, port: number): Promise<{ readonly server: Server; readonly url: string }> => {
  let baseUrl = ""
  const server = createServer((request, response) => {
    const send = (status: number, body: unknown) => {
      let text: string
      try {
        text = JSON.stringify(body)
      } catch (cause) {
        status = 500
        text = internalError(cause)
      }
      response.writeHead(status, jsonHead(text))
      response.end(text)
    }
    readBody(request)
      .then(
        async (body) => {
          if (body === undefined) return send(413, errorBody(refusal(new BodyTooLarge({ limit: maxBodyBytes }))))
          const answer = await handleApiRequest(
            { ...env, baseUrl },
            { method: request.method ?? "GET", url: request.url ?? "/", authorization: request.headers.authorization, body, idempotencyKey: request.headers[idempotencyHeader] as string | undefined }
          )
          send(answer.status, answer.body)
        },
        () => response.destroy()
      )
      .catch((cause: unknown) => {
        if (response.headersSent) response.destroy()
        else send(500, JSON.parse(internalError(cause)))
      })
  })
  server.on("clientError", answerClientError)
  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, host, () => {
      server.off("error", reject)
      const address = server.address()
      const boundPort = typeof address === "object" && address !== null ? address.port : port
      baseUrl = `http://${host.includes(":") ? `[${host}]` : host}:${boundPort}`
      resolve({ server, url: baseUrl })
    })
  })
}
