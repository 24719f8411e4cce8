import { createServer, type IncomingMessage, type Server } from "node:http"
import { handleApiRequest, type ApiEnvironment } from "./ApiHandler.ts"
import { errorBody } from "./ErrorBody.ts"
import { BodyTooLarge, refusal } from "./ServiceProblem.ts"

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

/** A node:http server answering the API; the environment's base URL is filled in once it listens. */
export const listen = (env: Omit<ApiEnvironment, "baseUrl">, host: string, port: number): Promise<{ readonly server: Server; readonly url: string }> => {
  let baseUrl = ""
  const server = createServer((request, response) => {
    const send = (status: number, body: unknown) => {
      const text = JSON.stringify(body)
      response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
      response.end(text)
    }
    readBody(request).then(
      async (body) => {
        if (body === undefined) return send(413, errorBody(refusal(new BodyTooLarge({ limit: maxBodyBytes }))))
        const answer = await handleApiRequest(
          { ...env, baseUrl },
          { method: request.method ?? "GET", url: request.url ?? "/", authorization: request.headers.authorization, body }
        )
        send(answer.status, answer.body)
      },
      () => response.destroy()
    )
  })
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
