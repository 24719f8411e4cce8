// Bad input to the HTTP face gets what an API server answers, never a 500 or a cut connection: bodies
// nested too deeply, `//` paths, CONNECT and upgrade requests, malformed resourceVersion, limit and
// timeoutSeconds, and a watch whose timeout is longer than Node's timers can wait.
import { connect } from "node:net"
import { request } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { maxNestingDepth } from "../../src/apiserver/validation/Nesting.ts"
import { type Served, serve, trainJob } from "../HttpFixture.ts"

interface Answer {
  readonly status: number
  readonly body: string
}

const call = (served: Served, method: string, path: string, body?: string, contentType = "application/json"): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const req = request(`${served.server.url}`, { method, path, headers: { "Content-Type": contentType }, timeout: 60_000 }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (text += chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }))
    })
    req.on("timeout", () => req.destroy(new Error("timed out")))
    req.on("error", reject)
    req.end(body)
  })

// What the server writes back on a raw connection, up to its close.
const raw = (served: Served, text: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const socket = connect(served.server.port, "127.0.0.1", () => socket.write(text))
    let answer = ""
    socket.setEncoding("utf8")
    socket.on("data", (chunk: string) => (answer += chunk))
    socket.on("end", () => resolve(answer))
    socket.on("error", reject)
  })

const message = (answer: Answer): unknown => (JSON.parse(answer.body) as { message?: unknown }).message
const jobs = "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs"
const runtimes = "/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes"
const tooDeep = `the request body could not be decoded: exceeded max depth of ${maxNestingDepth}`

// A TrainJob carrying `depth` levels of nesting in a field its schema does not define, and a runtime
// carrying them in its pod spec, which the simulator keeps as sent.
const deepJob = (name: string, depth: number): string =>
  JSON.stringify(trainJob(name)).replace('"spec":{', `"spec":{"bogus":${'{"a":'.repeat(depth)}1${"}".repeat(depth)},`)
const deepRuntime = (name: string, depth: number): string =>
  JSON.stringify({
    apiVersion: "trainer.kubeflow.org/v1alpha1",
    kind: "ClusterTrainingRuntime",
    metadata: { name },
    spec: { template: { spec: { replicatedJobs: [{ name: "node", template: { spec: { template: { spec: { containers: [] } } } } }] } } }
  }).replace('"containers":[]', `"containers":[],"x":${"[".repeat(depth)}1${"]".repeat(depth)}`)

describe("bad input to the HTTP face", () => {
  let served: Served
  beforeAll(async () => {
    served = await serve({ controllers: {} })
  })
  afterAll(async () => served.close())

  it("refuses bodies nested deeper than the limit with 400, whatever the path and format, and stores nothing", async () => {
    for (const [path, body, type] of [
      [jobs, deepJob("deep-a", 10_000), "application/json"],
      [runtimes, deepRuntime("deep-b", 10_000), "application/json"],
      [jobs, `a: ${"[".repeat(100_000)}1${"]".repeat(100_000)}`, "application/yaml"],
      [jobs, `${"- ".repeat(5_000)}1`, "application/yaml"],
      [`${jobs}/deep-a`, `${'{"a":'.repeat(10_000)}1${"}".repeat(10_000)}`, "application/merge-patch+json"]
    ] as const) {
      const answer = await call(served, path.endsWith("deep-a") ? "PATCH" : "POST", path, body, type)
      expect(answer.status, answer.body.slice(0, 300)).toBe(400)
      expect(message(answer)).toBe(tooDeep)
    }
    expect(served.simulator.system.get("trainjobs", "default", "deep-a")).toBeUndefined()
    expect(served.simulator.system.get("clustertrainingruntimes", undefined, "deep-b")).toBeUndefined()
  })

  it("takes a body nested up to the limit", async () => {
    const answer = await call(served, "POST", runtimes, deepRuntime("deep-ok", maxNestingDepth - 12))
    expect(answer.status, answer.body.slice(0, 300)).toBe(201)
  })

  it("refuses a JSON patch whose result would nest deeper than the limit, or whose copies would grow without bound", async () => {
    expect((await call(served, "POST", jobs, JSON.stringify(trainJob("patched")))).status).toBe(201)
    const deepValue = JSON.parse(`${'{"a":'.repeat(300)}1${"}".repeat(300)}`) as unknown
    const deeper = await call(
      served,
      "PATCH",
      `${jobs}/patched`,
      JSON.stringify([
        { op: "add", path: "/metadata/annotations", value: {} },
        { op: "add", path: "/spec/x", value: deepValue },
        { op: "copy", from: "/spec/x", path: `/spec/x${"/a".repeat(299)}` }
      ]),
      "application/json-patch+json"
    )
    expect(deeper.status, deeper.body.slice(0, 300)).toBe(422)
    const doubling = Array.from({ length: 40 }, (_, i) => ({ op: "copy", from: "/spec", path: `/spec/c${i}` }))
    const grown = await call(served, "PATCH", `${jobs}/patched`, JSON.stringify(doubling), "application/json-patch+json")
    expect(grown.status, grown.body.slice(0, 300)).toBe(422)
    expect(grown.body).toContain("Unable to complete the copy")
  })

  it("answers `//` and absolute-form paths as any path, never with a 500", async () => {
    for (const path of ["//", "//api//v1", "//apis/trainer.kubeflow.org/v1alpha1/trainjobs", "///"]) {
      const answer = await call(served, "GET", path)
      expect(answer.status, `${path}: ${answer.body}`).toBe(404)
    }
    const absolute = await raw(served, `GET http://127.0.0.1/apis/trainer.kubeflow.org/v1alpha1/trainjobs HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)
    expect(absolute).toMatch(/^HTTP\/1\.1 200 /)
  })

  it("answers CONNECT and upgrade requests with 404 or 405 instead of dropping the connection", async () => {
    const tunnel = await raw(served, `CONNECT /api/v1/namespaces HTTP/1.1\r\nHost: x\r\n\r\n`)
    expect(tunnel).toMatch(/^HTTP\/1\.1 405 /)
    expect(tunnel).toContain('"reason":"MethodNotAllowed"')
    const upgrade = await raw(served, `GET /api/v1/namespaces/default/pods/p/exec HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n`)
    expect(upgrade).toMatch(/^HTTP\/1\.1 404 /)
    const head = await raw(served, `HEAD /api HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n`)
    expect(head).toMatch(/^HTTP\/1\.1 405 [^]*\r\n\r\n$/)
  })

  it("reads resourceVersion on get, list and watch alike, as an unsigned decimal", async () => {
    for (const rv of ["abc", "-1", "1e400", "0x10", "+1", " 1", "18446744073709551616"]) {
      const problem = /^[0-9]+$/.test(rv) ? "value out of range" : "invalid syntax"
      const expected = `resourceVersion: Invalid value: ${JSON.stringify(rv)}: strconv.ParseUint: parsing ${JSON.stringify(rv)}: ${problem}`
      for (const query of ["", "watch=true&"]) {
        const answer = await call(served, "GET", `${jobs}?${query}resourceVersion=${encodeURIComponent(rv)}`)
        expect(answer.status, `${query}${rv}: ${answer.body}`).toBe(400)
        expect(message(answer)).toBe(expected)
      }
      const get = await call(served, "GET", `${jobs}/patched?resourceVersion=${encodeURIComponent(rv)}`)
      expect(get.status).toBe(400)
    }
    for (const rv of ["0", "01", "18446744073709551615"]) {
      expect((await call(served, "GET", `${jobs}?resourceVersion=${rv}`)).status).toBe(200)
    }
  })

  it("reads limit and timeoutSeconds as decimal integers", async () => {
    for (const [name, value] of [["limit", "0x10"], ["limit", "1e3"], ["limit", "1.0"], ["timeoutSeconds", "0x10"], ["timeoutSeconds", "9223372036854775808"]]) {
      const answer = await call(served, "GET", `${jobs}?watch=${name === "limit" ? "false" : "true"}&${name}=${value}`)
      expect(answer.status, `${name}=${value}: ${answer.body}`).toBe(400)
      expect(message(answer)).toContain(`${name}: strconv.ParseInt: parsing "${value}"`)
    }
    expect((await call(served, "GET", `${jobs}?limit=007`)).status).toBe(200)
  })

  it("keeps a watch open when its timeoutSeconds is beyond what one Node timer can wait", async () => {
    const events: Array<string> = []
    let ended = false
    const req = request(`${served.server.url}${jobs}?watch=true&timeoutSeconds=2147484`)
    const opened = new Promise<void>((resolve, reject) => {
      req.on("response", (res) => {
        res.setEncoding("utf8")
        res.on("data", (chunk: string) => events.push(...chunk.split("\n").filter((l) => l !== "")))
        res.on("end", () => (ended = true))
        resolve()
      })
      req.on("error", reject)
    })
    req.end()
    await opened
    const before = events.length
    expect((await call(served, "POST", jobs, JSON.stringify(trainJob("after-watch")))).status).toBe(201)
    // Waits for the event itself (a bound for a slow machine, not a duration).
    for (const end = Date.now() + 60_000; !events.slice(before).some((e) => e.includes('"after-watch"')) && !ended && Date.now() < end; ) {
      await new Promise((r) => setTimeout(r, 10))
    }
    expect(ended).toBe(false)
    expect(events.slice(before).some((e) => e.includes('"after-watch"'))).toBe(true)
    req.destroy()
  })
})
