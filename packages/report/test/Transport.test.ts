// One POST of a batch over node:http against a local server of the test's own: what it sends, what it reads of
// each answer, and that no answer (refused, dropped, too slow) is an answer without a status, never a rejection.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { errorOf, httpTransport } from "../src/Transport.ts"

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void

const servers: Array<() => Promise<void>> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((close) => close()))
})

const serve = async (handler: Handler) => {
  const ports: Array<number | undefined> = []
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      ports.push(req.socket.remotePort)
      handler(req, res, Buffer.concat(chunks).toString())
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  servers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  )
  return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/jobs/3/reports`), ports }
}

describe("httpTransport", () => {
  it("posts the body with the token, its type and its key, on one kept-alive connection", async () => {
    const seen: Array<[string | undefined, string, unknown]> = []
    const { url, ports } = await serve((req, res, body) => {
      seen.push([req.url, body, { method: req.method, auth: req.headers.authorization, type: req.headers["content-type"], key: req.headers["idempotency-key"] }])
      res.writeHead(200, { "content-type": "application/json" }).end('{"job":3}')
    })
    const transport = httpTransport({ url, token: "djr1.3.x" }, 5000)
    expect(await transport.post('{"metrics":[]}', "k1")).toStrictEqual({ status: 200, error: "" })
    expect(await transport.post('{"logs":[]}', "k2")).toStrictEqual({ status: 200, error: "" })
    transport.close()
    expect(seen).toEqual([
      ["/api/v1/jobs/3/reports", '{"metrics":[]}', { method: "POST", auth: "Bearer djr1.3.x", type: "application/json", key: "k1" }],
      ["/api/v1/jobs/3/reports", '{"logs":[]}', { method: "POST", auth: "Bearer djr1.3.x", type: "application/json", key: "k2" }]
    ])
    expect(ports[1]).toBe(ports[0])
  })

  it("sends its body's length in bytes, held or not", async () => {
    const lengths: Array<string | undefined> = []
    const { url } = await serve((req, res) => {
      lengths.push(req.headers["content-length"])
      res.writeHead(200).end()
    })
    const transport = httpTransport({ url, token: "t" }, 5000)
    transport.hold(true)
    expect((await transport.post('{"m":"é"}', "k")).status).toBe(200)
    transport.hold(false)
    transport.close()
    expect(lengths).toEqual([String(Buffer.byteLength('{"m":"é"}'))])
    expect(lengths).toEqual(["10"])
  })

  it("reads a 300's error too, and answers a request it cannot make (a token with a newline) without a status", async () => {
    const { url } = await serve((_req, res) => res.writeHead(300, { "content-type": "application/json" }).end('{"error":"Moved","message":"elsewhere"}'))
    const transport = httpTransport({ url, token: "t" }, 5000)
    expect(await transport.post("{}", "k")).toStrictEqual({ status: 300, error: "Moved: elsewhere" })
    expect((await httpTransport({ url, token: "a\nb" }, 5000).post("{}", "k")).status).toBeUndefined()
    transport.close()
  })

  it("reads a refusal's status, its Retry-After, and its error's name and message", async () => {
    const { url } = await serve((_req, res) => res.writeHead(503, { "retry-after": "3", "content-type": "application/json" }).end('{"error":"Unavailable","message":"starting"}'))
    const transport = httpTransport({ url, token: "t" }, 5000)
    expect(await transport.post("{}", "k")).toEqual({ status: 503, retryAfter: "3", error: "Unavailable: starting" })
    transport.close()
  })

  it("answers without a status when the connection is refused, dropped, or slower than the timeout", async () => {
    const refused = httpTransport({ url: new URL("http://127.0.0.1:1/x"), token: "t" }, 5000)
    expect(await refused.post("{}", "k")).toEqual({ error: expect.stringContaining("ECONNREFUSED") })
    const { url: dropping } = await serve((req) => req.socket.destroy())
    expect((await httpTransport({ url: dropping, token: "t" }, 5000).post("{}", "k")).status).toBeUndefined()
    const { url: silent } = await serve(() => undefined)
    expect(await httpTransport({ url: silent, token: "t" }, 50).post("{}", "k")).toEqual({ error: "Error: no answer within 50 ms" })
  })

  it("reads an error body that is not JSON as its first 200 characters", () => {
    expect(errorOf('{"error":"Forbidden","message":"not this job"}')).toBe("Forbidden: not this job")
    expect(errorOf("x".repeat(300))).toBe("x".repeat(200))
    expect(errorOf('{"message":"m"}')).toBe(": m")
    expect(errorOf('{"error":"E"}')).toBe("E: ")
    expect(errorOf("<html>bad gateway</html>")).toBe("<html>bad gateway</html>")
  })
})
