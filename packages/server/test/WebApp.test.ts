// `dispatch serve` answers the web page at `/`, beside the API: index.html never cached, hashed assets cached
// for good with their content type (gzipped when asked), and every other path still the API's JSON 404.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gunzipSync } from "node:zlib"
import { webRoot } from "@dispatch/web"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { JobServer } from "../src/index.ts"
import { acceptsGzip, contentTypeOf, webContentPolicy } from "../src/http/WebApp.ts"
import { maxMetricPageLength } from "../src/wire/Paging.ts"
import { client, newJob, started, tokens } from "./Fixtures.ts"

const script = `console.log(${JSON.stringify("x".repeat(4000))})\n`

describe("the web page at /", () => {
  let dir: string
  let server: JobServer
  let unbuilt: JobServer
  let real: JobServer
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "dispatch-web-"))
    mkdirSync(join(dir, "app", "assets"), { recursive: true })
    writeFileSync(join(dir, "app", "index.html"), '<!doctype html><script type="module" src="/assets/main-abc123.js"></script>')
    writeFileSync(join(dir, "app", "assets", "main-abc123.js"), script)
    writeFileSync(join(dir, "app", "assets", "style-def456.css"), "body{margin:0}")
    writeFileSync(join(dir, "outside.txt"), "not served")
    server = await started({ webRoot: join(dir, "app") })
    unbuilt = await started({ webRoot: join(dir, "missing") })
    real = await started({})
  })
  afterAll(async () => {
    await Promise.all([server.close(), unbuilt.close(), real.close()])
    rmSync(dir, { recursive: true, force: true })
  })

  it("answers index.html at / as HTML that is revalidated on every load", async () => {
    const answer = await fetch(`${server.url}/`)
    expect(answer.status).toBe(200)
    expect(answer.headers.get("content-type")).toBe("text/html; charset=utf-8")
    expect(answer.headers.get("cache-control")).toBe("no-cache")
    expect(answer.headers.get("content-security-policy")).toBe(webContentPolicy)
    expect(webContentPolicy).toMatch(/default-src 'self'/)
    expect(await answer.text()).toContain("/assets/main-abc123.js")
  })

  it("answers a hashed asset with its content type, cached for a year, gzipped when the client takes gzip", async () => {
    const plain = await fetch(`${server.url}/assets/main-abc123.js`, { headers: { "accept-encoding": "identity" } })
    expect(plain.status).toBe(200)
    expect(plain.headers.get("content-type")).toBe("text/javascript; charset=utf-8")
    expect(plain.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
    expect(plain.headers.get("content-encoding")).toBeNull()
    expect(await plain.text()).toBe(script)
    const css = await fetch(`${server.url}/assets/style-def456.css`)
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8")
    // node's fetch decodes gzip itself; a raw request shows what travelled.
    const { request } = await import("node:http")
    const raw = await new Promise<{ encoding: string | undefined; body: Buffer }>((resolve, reject) => {
      request(`${server.url}/assets/main-abc123.js`, { headers: { "accept-encoding": "gzip" } }, (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () => resolve({ encoding: res.headers["content-encoding"], body: Buffer.concat(chunks) }))
      })
        .on("error", reject)
        .end()
    })
    expect(raw.encoding).toBe("gzip")
    expect(raw.body.length).toBeLessThan(script.length)
    expect(gunzipSync(raw.body).toString()).toBe(script)
  })

  it("serves only what the build made: other names, traversal and API paths not declared are the API's JSON 404", async () => {
    for (const path of ["/assets/nope.js", "/assets/..%2Foutside.txt", "/assets/../outside.txt", "/outside.txt", "/index.html", "/api/v1/nope"]) {
      const answer = await fetch(`${server.url}${path}`)
      expect(answer.status, path).toBe(404)
      expect(answer.headers.get("content-type"), path).toContain("application/json")
      expect((await answer.json()) as unknown, path).toMatchObject({ error: expect.any(String) })
    }
  })

  it("says the page is not built, instead of a blank 404, when the build is missing", async () => {
    const answer = await fetch(`${unbuilt.url}/`)
    expect(answer.status).toBe(503)
    expect(await answer.text()).toMatch(/not built/)
    expect((await fetch(`${unbuilt.url}/api/v1/nope`)).status).toBe(404)
  })

  it("serves @dispatch/web's own build by default, every script it loads answered as JavaScript", async () => {
    expect(webRoot).toMatch(/dist[/\\]app[/\\]$/)
    const page = await fetch(`${real.url}/`)
    expect(page.status).toBe(200)
    const html = await page.text()
    const scripts = [...html.matchAll(/src="([^"]+)"/g)].map((m) => m[1] ?? "")
    expect(scripts.length).toBeGreaterThan(0)
    for (const src of scripts) {
      expect(src).toMatch(/^\/assets\//)
      const asset = await fetch(`${real.url}${src}`)
      expect(asset.status, src).toBe(200)
      expect(asset.headers.get("content-type"), src).toBe("text/javascript; charset=utf-8")
    }
  })
})

describe("a chart's reads", () => {
  let server: JobServer
  beforeAll(async () => {
    server = await started({})
  })
  afterAll(() => server.close())

  it("take a metric's snapshots up to 10,000 a page, so a 100,000-point chart is ten requests; longer pages are refused", async () => {
    const alice = client(server.url, tokens.alice)
    const { job } = await newJob(alice, "chart-pages")
    for (const [step, value] of [[0, 1], [1, "nan"], [2, "inf"]] as const) expect((await alice("POST", `/jobs/${job.id}/metrics`, { name: "loss", value, step })).status).toBe(200)
    expect(maxMetricPageLength).toBe(10_000)
    const whole = await alice("GET", `/jobs/${job.id}/metrics/loss/snapshots?pageLength=${maxMetricPageLength}`)
    expect(whole.status).toBe(200)
    expect(whole.body).toMatchObject({ totalNumResults: 3, isComplete: true })
    expect(whole.body.data.map((m: { value: unknown }) => m.value)).toEqual([1, "nan", "inf"])
    const tooLong = await alice("GET", `/jobs/${job.id}/metrics/loss/snapshots?pageLength=${maxMetricPageLength + 1}`)
    expect(tooLong.status).toBe(400)
    // Other lists keep their 100-item pages.
    expect((await alice("GET", "/jobs?pageLength=101")).status).toBe(400)
  })
})

describe("web file answers", () => {
  it("name a content type for each kind the build makes and bytes for others", () => {
    expect(contentTypeOf("a.HTML")).toBe("text/html; charset=utf-8")
    expect(contentTypeOf("index-1.css")).toBe("text/css; charset=utf-8")
    expect(contentTypeOf("x.woff2")).toBe("font/woff2")
    expect(contentTypeOf("x")).toBe("application/octet-stream")
  })

  it("take gzip only when the client accepts it with a weight above zero", () => {
    expect(acceptsGzip("gzip, deflate, br")).toBe(true)
    expect(acceptsGzip("br;q=1.0, gzip;q=0.8")).toBe(true)
    expect(acceptsGzip("gzip;q=0")).toBe(false)
    expect(acceptsGzip("*")).toBe(true)
    expect(acceptsGzip(undefined)).toBe(false)
    expect(acceptsGzip("identity")).toBe(false)
    fc.assert(fc.property(fc.string(), (header) => acceptsGzip(header) === acceptsGzip(header.toUpperCase())))
  })
})
