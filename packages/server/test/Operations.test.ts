// The operations face: /healthz, /readyz, /metrics, X-Request-Id and the access log.
import { Agent, get, type IncomingMessage } from "node:http"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { failWhen, openEmptyPglite, withTap } from "./TestDatabase.ts"
import type { JobServer } from "../src/index.ts"
import { migrations } from "../src/store/Migrations.ts"
import { accessLine, requestIdOf } from "../src/ops/AccessLog.ts"
import { readiness } from "../src/ops/Readiness.ts"
import { client, newJob, started, tokens } from "./Fixtures.ts"

describe("operations endpoints", () => {
  let server: JobServer | undefined
  const lines: Array<string> = []
  beforeAll(async () => {
    server = await started({ accessLog: { format: "json", write: (line) => lines.push(line) } })
  })
  afterAll(async () => {
    await server?.close()
  })
  const url = () => server?.url ?? ""

  test("/healthz answers; /readyz says the database is reachable and migrated, and no dispatcher was asked for", async () => {
    expect(await (await fetch(`${url()}/healthz`)).json()).toEqual({ status: "ok" })
    const ready = await fetch(`${url()}/readyz`)
    expect(ready.status).toBe(200)
    expect(await ready.json()).toEqual({ ready: true, database: "reachable", migrations: `all ${migrations.length} applied`, dispatcher: "off", reasons: [], queues: [] })
  })

  test("a request's X-Request-Id is echoed, or one is made; each request gets one JSON access-log line with it", async () => {
    const sent = await fetch(`${url()}/api/v1/experiments`, { headers: { authorization: `Bearer ${tokens.alice}`, "x-request-id": "trace-42" } })
    expect(sent.headers.get("x-request-id")).toBe("trace-42")
    const made = await fetch(`${url()}/api/v1/jobs/77777`, { headers: { authorization: `Bearer ${tokens.alice}` } })
    const id = made.headers.get("x-request-id") ?? ""
    expect(id).toMatch(/^[0-9a-f-]{36}$/)
    const logged = lines.map((l) => JSON.parse(l) as { requestId: string; status: number; route: string; method: string })
    expect(logged.find((l) => l.requestId === "trace-42")).toMatchObject({ method: "GET", status: 200, route: "/api/v1/experiments" })
    expect(logged.find((l) => l.requestId === id)).toMatchObject({ status: 404, route: "/api/v1/jobs/{id}" })
  })

  test("connections stay open 65 s between requests, and the answers say so", async () => {
    const answer = await new Promise<IncomingMessage>((resolve, reject) => get(`${url()}/healthz`, { agent: new Agent({ keepAlive: true }) }, resolve).on("error", reject))
    answer.resume()
    expect(answer.headers["connection"]).toBe("keep-alive")
    expect(answer.headers["keep-alive"]).toBe("timeout=65")
  })

  test("/metrics is Prometheus text: requests by route and status with a latency histogram, jobs by status, queue gates", async () => {
    const alice = client(url(), tokens.alice)
    await newJob(alice, "metrics")
    await alice("GET", "/jobs/88888")
    const response = await fetch(`${url()}/metrics`)
    expect(response.headers.get("content-type")).toContain("text/plain")
    const text = await response.text()
    expect(text).toMatch(/^dispatch_http_requests_total\{route="\/api\/v1\/jobs\/\{id\}",status="404"\} [1-9]\d*$/m)
    expect(text).toMatch(/^dispatch_http_requests_total\{route="\/api\/v1\/experiments\/\{id\}\/jobs",status="200"\} [1-9]\d*$/m)
    expect(text).toMatch(/^dispatch_http_request_duration_seconds_bucket\{route="\/api\/v1\/jobs\/\{id\}",le="\+Inf"\} [1-9]\d*$/m)
    expect(text).toMatch(/^dispatch_jobs\{status="queued"\} [1-9]\d*$/m)
    expect(text).toMatch(/^dispatch_queue_gate\{queue="\d+",name="q-metrics",state="[a-z]+"\} 1$/m)
    expect(text).toMatch(/^dispatch_dispatch_attempts_total \d+$/m)
  })
})

describe("readiness", () => {
  test("a database never migrated is not ready, naming every missing migration; one that fails is unreachable", async () => {
    // A fresh database: reachable, without the migrations' record.
    const fresh = await openEmptyPglite()
    const broken = await withTap(fresh, failWhen(() => new Error("connection refused")))
    try {
      const found = await fresh.run(readiness("off"))
      expect(found).toMatchObject({ ready: false, database: "reachable" })
      expect(found.reasons).toEqual([`migrations ${migrations.map((m) => m.version).join(", ")} are not applied`])
      expect(await broken.run(readiness("running"))).toMatchObject({ ready: false, database: "unreachable: connection refused" })
      const stopped = await broken.run(readiness("stopped"))
      expect(stopped.reasons).toContain("the dispatcher has stopped")
    } finally {
      await broken.close()
      await fresh.close()
    }
  })

  test("request ids: a sane client id is kept, anything else replaced", () => {
    expect(requestIdOf("abc-1.2:3_x", () => "new")).toBe("abc-1.2:3_x")
    for (const bad of [undefined, "", "has space", "a".repeat(129), "new\nline"]) expect(requestIdOf(bad, () => "new")).toBe("new")
    expect(accessLine("text", { time: "t", requestId: "r", method: "GET", path: "/p", route: "/p", status: 200, ms: 1.25 })).toBe("t r GET /p 200 1.3ms")
  })
})
