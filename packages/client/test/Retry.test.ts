// A connection the server closes before answering (as a server does when a keep-alive connection went idle just as
// the client reused it) is resent only when that is safe: idempotent methods, and creations with an Idempotency-Key.
import { createServer, connect, type Server, type Socket } from "node:net"
import { Effect, Result } from "effect"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import fc from "fast-check"
import { HttpClientRequest } from "effect/http"
import { client, jobBody, registerWorld, started, tokens } from "../../server/test/Fixtures.ts"
import type { JobServer } from "@dispatch/server"
import { makeClient, runWithFetch, safeToRepeat, withIdempotencyKey } from "../src/index.ts"

// A TCP proxy to the service that closes the first `drop` connections as soon as a request arrives on them,
// without a byte of answer, and passes every later one through. It counts the requests that reached it.
const flakyProxy = async (target: URL, drop: number) => {
  let dropped = 0
  let arrived = 0
  const sockets = new Set<Socket>()
  const server: Server = createServer((socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
    if (dropped < drop) {
      dropped += 1
      socket.once("data", () => {
        arrived += 1
        socket.destroy()
      })
      return
    }
    socket.once("data", () => (arrived += 1))
    const upstream = connect(Number(target.port), target.hostname)
    socket.pipe(upstream).pipe(socket)
    upstream.on("error", () => socket.destroy())
    socket.on("error", () => upstream.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  return {
    url: `http://127.0.0.1:${port}`,
    arrived: () => arrived,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}

describe("the client resends a request whose connection failed, when that is safe", () => {
  let service: JobServer | undefined
  beforeAll(async () => {
    service = await started({})
  })
  afterAll(async () => {
    await service?.close()
  })

  test("a creation with an Idempotency-Key is resent and makes exactly one job", async () => {
    const url = service?.url ?? ""
    const world = await registerWorld(client(url, tokens.alice), "retry-keyed")
    const proxy = await flakyProxy(new URL(url), 2)
    try {
      const created = await runWithFetch(
        Effect.flatMap(makeClient({ baseUrl: proxy.url, token: tokens.alice }), (c) =>
          c.jobs.create({ params: { id: world.experiment }, payload: jobBody(world.entrypoint, world.queue) as never }).pipe(withIdempotencyKey("retry-keyed-1"))
        )
      )
      expect(proxy.arrived()).toBe(3)
      const listed = await client(url, tokens.alice).typed((c) => c.jobs.listInExperiment({ params: { id: world.experiment }, query: {} }))
      expect(listed.data.map((j) => j.id)).toEqual([created.id])
    } finally {
      await proxy.close()
    }
  })

  test("a creation without a key is sent once: the failure is the caller's to handle", async () => {
    const url = service?.url ?? ""
    const world = await registerWorld(client(url, tokens.alice), "retry-unkeyed")
    const proxy = await flakyProxy(new URL(url), 1)
    try {
      const outcome = await runWithFetch(
        Effect.result(
          Effect.flatMap(makeClient({ baseUrl: proxy.url, token: tokens.alice }), (c) =>
            c.jobs.create({ params: { id: world.experiment }, payload: jobBody(world.entrypoint, world.queue) as never })
          )
        )
      )
      expect(Result.isFailure(outcome) && outcome.failure).toMatchObject({ _tag: "HttpClientError", reason: { _tag: "TransportError" } })
      expect(proxy.arrived()).toBe(1)
    } finally {
      await proxy.close()
    }
  })

  test("a read is resent; a policy of no resends sends it once", async () => {
    const url = service?.url ?? ""
    const proxy = await flakyProxy(new URL(url), 1)
    try {
      const page = await runWithFetch(Effect.flatMap(makeClient({ baseUrl: proxy.url, token: tokens.alice }), (c) => c.queues.list({ query: {} })))
      expect(page.data.length).toBeGreaterThan(0)
      expect(proxy.arrived()).toBe(2)
    } finally {
      await proxy.close()
    }
    const once = await flakyProxy(new URL(url), 1)
    try {
      const outcome = await runWithFetch(
        Effect.result(Effect.flatMap(makeClient({ baseUrl: once.url, token: tokens.alice, retry: { times: 0, delay: "1 millis" } }), (c) => c.queues.list({ query: {} })))
      )
      expect(Result.isFailure(outcome)).toBe(true)
      expect(once.arrived()).toBe(1)
    } finally {
      await once.close()
    }
  })

  test("safe to repeat: exactly the idempotent methods, and any request with an Idempotency-Key", () => {
    const methods = ["GET", "HEAD", "OPTIONS", "PUT", "DELETE", "POST", "PATCH"] as const
    fc.assert(
      fc.property(fc.constantFrom(...methods), fc.option(fc.string({ minLength: 1 }), { nil: undefined }), (method, key) => {
        const base = HttpClientRequest.make(method)("http://service.test/api/v1/jobs")
        const request = key === undefined ? base : HttpClientRequest.setHeader(base, "idempotency-key", key)
        expect(safeToRepeat(request)).toBe(key !== undefined || !["POST", "PATCH"].includes(method))
      })
    )
  })
})
