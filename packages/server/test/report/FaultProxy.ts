// A fault-injecting HTTP proxy between a reporter and the job service: each request is answered as the test's
// plan says (forwarded, refused with a status, delayed, its connection dropped before or after it reached the
// service), and every request is kept with its Idempotency-Key, when it came and what became of it.
import { createServer, request as forward, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

/** What the proxy does with one request. */
export type Fault =
  | { readonly kind: "forward" }
  | { readonly kind: "status"; readonly status: number; readonly retryAfter?: string; readonly body?: unknown }
  | { readonly kind: "delay"; readonly ms: number }
  /** The connection is dropped before the request reaches the service. */
  | { readonly kind: "drop" }
  /** The request reaches the service and lands, but its answer is never sent back (the connection is dropped). */
  | { readonly kind: "lose-answer" }

/** One request the proxy saw. */
export interface Seen {
  readonly key: string | undefined
  readonly at: number
  readonly fault: Fault["kind"]
  readonly status?: number
}

/** A running proxy: its URL, what it saw, and how to change its plan. */
export interface FaultProxy {
  readonly url: string
  readonly seen: Array<Seen>
  /** Starts a new plan, counting requests (and keeping what is seen) afresh: the fault for the n-th request (from 0). */
  readonly use: (plan: (n: number) => Fault) => void
  readonly close: () => Promise<void>
}

const readBody = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve, reject) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => resolve(Buffer.concat(chunks)))
    req.on("error", reject)
  })

/** Starts a proxy to `target` (a base URL such as `http://127.0.0.1:8080`) that forwards until its plan is changed. */
export const faultProxy = async (target: string): Promise<FaultProxy> => {
  const to = new URL(target)
  let count = 0
  // A request of an earlier plan still in progress (delayed) is not noted under the new one.
  let generation = 0
  const send = (req: IncomingMessage, body: Buffer) =>
    new Promise<{ readonly status: number; readonly headers: Record<string, string | Array<string> | undefined>; readonly body: Buffer }>((resolve, reject) => {
      const headers = { ...req.headers, host: to.host }
      const outgoing = forward({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers }, (answer) => {
        readBody(answer).then((text) => resolve({ status: answer.statusCode ?? 502, headers: answer.headers, body: text }), reject)
      })
      outgoing.on("error", reject)
      outgoing.end(body)
    })
  let plan: (n: number) => Fault = () => ({ kind: "forward" })
  const proxy: FaultProxy = {
    url: "",
    seen: [],
    use: (next) => {
      plan = next
      count = 0
      generation++
      proxy.seen.length = 0
    },
    close: async () => undefined
  }
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req)
    const fault = plan(count++)
    const key = req.headers["idempotency-key"]
    const mine = generation
    const note = (status?: number) =>
      mine === generation &&
      proxy.seen.push({ key: typeof key === "string" ? key : undefined, at: Date.now(), fault: fault.kind, ...(status === undefined ? {} : { status }) })
    switch (fault.kind) {
      case "drop":
        note()
        req.socket.destroy()
        return
      case "status":
        note(fault.status)
        res.writeHead(fault.status, { "content-type": "application/json", ...(fault.retryAfter === undefined ? {} : { "retry-after": fault.retryAfter }) })
        res.end(JSON.stringify(fault.body ?? { error: "Injected", message: `the proxy answered ${fault.status}`, detail: [] }))
        return
      case "lose-answer": {
        const answer = await send(req, body)
        note(answer.status)
        req.socket.destroy()
        return
      }
      case "delay":
      case "forward": {
        if (fault.kind === "delay") await new Promise((resolve) => setTimeout(resolve, fault.ms))
        const answer = await send(req, body)
        note(answer.status)
        if (res.destroyed || req.socket.destroyed) return
        res.writeHead(answer.status, { "content-type": String(answer.headers["content-type"] ?? "application/json") })
        res.end(answer.body)
      }
    }
  }
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => req.socket.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return Object.assign(proxy, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  })
}
