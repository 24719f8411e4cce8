// KubeCluster's own edge, against a bare node:http server: what client-node sends (content type, body,
// query) and how every kind of failure it throws is classified. The conformance suite covers the rest
// against the HTTP simulator.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { KubeConfig } from "@kubernetes/client-node"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { statusBody } from "@dispatch/sim"
import type { ClusterError } from "../src/ClusterError.ts"
import { makeKubeCluster } from "../src/KubeCluster.ts"
import { TrainJobs, TrainingRuntimes } from "../src/ResourceKind.ts"

interface Seen {
  readonly method: string
  readonly url: string
  readonly contentType: string | undefined
  readonly body: string
}

const secret = "sekret-token-that-must-not-leak"
const seen: Array<Seen> = []
let connections = 0
let server: Server
let url = ""
const held: Array<ServerResponse> = []

const answer = (req: IncomingMessage, res: ServerResponse, body: string): void => {
  seen.push({ method: req.method ?? "", url: req.url ?? "", contentType: req.headers["content-type"], body })
  const path = (req.url ?? "").split("?")[0] ?? ""
  const json = (code: number, value: unknown) => {
    res.writeHead(code, { "content-type": "application/json" })
    res.end(JSON.stringify(value))
  }
  if (path.endsWith("/hang")) return void held.push(res)
  if (path.endsWith("/reset")) return void req.socket.destroy()
  if (path.endsWith("/missing")) return json(404, statusBody(404, "NotFound", `trainjobs "missing" not found`, { name: "missing", kind: "trainjobs" }))
  if (path.endsWith("/forbidden")) return json(403, statusBody(403, "Forbidden", "forbidden"))
  if (path.endsWith("/invalid")) return json(422, statusBody(422, "Invalid", "bad", { causes: [{ field: "spec.x", message: "required" }] }))
  if (path.endsWith("/broken")) return json(500, "not json at all")
  if (path.endsWith("/busy")) {
    // A proxy's 503: a Retry-After header, and a body that is no Status.
    res.writeHead(503, { "content-type": "text/plain", "retry-after": "7" })
    return void res.end("upstream busy")
  }
  if (path.endsWith("/chunked")) {
    // The answer in two writes, split inside a two-byte character, so it arrives in more than one chunk.
    const bytes = Buffer.from(JSON.stringify({ apiVersion: "v1", kind: "TrainJob", metadata: { name: "chunked", annotations: { note: "caf\u00e9" } } }))
    const cut = bytes.indexOf(0xc3) + 1
    res.writeHead(200, { "content-type": "application/json" })
    res.write(bytes.subarray(0, cut))
    return void setTimeout(() => res.end(bytes.subarray(cut)), 20)
  }
  if (path.endsWith("/html")) {
    res.writeHead(200, { "content-type": "application/json" })
    return void res.end("<html>a proxy's page</html>")
  }
  return json(200, { apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainJob", metadata: { name: path.split("/").pop(), namespace: "default" }, extra: 1 })
}

const configFor = (server: string): KubeConfig => {
  const config = new KubeConfig()
  config.loadFromOptions({
    clusters: [{ name: "c", server, skipTLSVerify: true }],
    users: [{ name: "u", token: secret }],
    contexts: [{ name: "x", cluster: "c", user: "u" }],
    currentContext: "x"
  })
  return config
}

const failure = (effect: Effect.Effect<unknown, ClusterError>): Promise<ClusterError> => Effect.runPromise(Effect.flip(effect))

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = ""
    req.on("data", (chunk: Buffer) => (body += chunk.toString()))
    req.on("end", () => answer(req, res, body))
  })
  server.on("connection", () => connections++)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  for (const res of held) res.destroy()
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

describe("KubeCluster", () => {
  // A call timeout no answer misses however busy the machine; a short one where no answer comes.
  const cluster = (callMs = 30_000) => makeKubeCluster(configFor(url), callMs)

  it("reads an object and keeps fields it does not type", async () => {
    const object = await Effect.runPromise(cluster().get(TrainJobs, { namespace: "default", name: "a" }))
    expect(object.metadata.name).toBe("a")
    expect(object["extra"]).toBe(1)
  })

  it("reads an answer that arrives in several chunks, a character split between them", async () => {
    const object = await Effect.runPromise(cluster().get(TrainJobs, { namespace: "default", name: "chunked" }))
    expect(object.metadata.annotations).toEqual({ note: "caf\u00e9" })
  })

  it("sends merge patches as application/merge-patch+json, with the resourceVersion precondition", async () => {
    await Effect.runPromise(cluster().mergePatch(TrainingRuntimes, { namespace: "default", name: "p" }, { metadata: { ownerReferences: [] } }, { resourceVersion: "7" }))
    const call = seen.findLast((s) => s.method === "PATCH")
    expect(call?.contentType).toBe("application/merge-patch+json")
    expect(JSON.parse(call?.body ?? "{}")).toEqual({ metadata: { ownerReferences: [], resourceVersion: "7" } })
    expect(call?.url).toBe("/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainingruntimes/p")
  })

  it("sends the status subresource for status patches", async () => {
    await Effect.runPromise(cluster().mergePatch(TrainJobs, { namespace: "default", name: "s" }, { status: {} }, { status: true }))
    expect(seen.findLast((s) => s.method === "PATCH")?.url).toBe("/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/s/status")
  })

  it("sends delete options with propagation and preconditions", async () => {
    await Effect.runPromise(cluster().delete(TrainJobs, { namespace: "default", name: "d" }, { propagation: "Background", preconditions: { uid: "u-1" } }))
    const call = seen.findLast((s) => s.method === "DELETE")
    expect(JSON.parse(call?.body ?? "{}")).toMatchObject({ kind: "DeleteOptions", propagationPolicy: "Background", preconditions: { uid: "u-1" } })
  })

  it("sends the label selector of a list", async () => {
    await Effect.runPromise(Effect.exit(cluster().list(TrainJobs, "default", "a=b,c=d")))
    const call = seen.findLast((s) => s.method === "GET" && s.url.includes("labelSelector"))
    expect(decodeURIComponent(call?.url ?? "")).toContain("labelSelector=a=b,c=d")
  })

  it("parses Status bodies into the reason and causes", async () => {
    const notFound = await failure(cluster().get(TrainJobs, { namespace: "default", name: "missing" }))
    expect(notFound.reason).toBe("NotFound")
    expect(notFound.status?.message).toBe(`trainjobs "missing" not found`)
    expect((await failure(cluster().get(TrainJobs, { namespace: "default", name: "forbidden" }))).reason).toBe("Forbidden")
    const invalid = await failure(cluster().get(TrainJobs, { namespace: "default", name: "invalid" }))
    expect(invalid.reason).toBe("Invalid")
    expect(invalid.status?.causes).toEqual([{ field: "spec.x", message: "required" }])
    const broken = await failure(cluster().get(TrainJobs, { namespace: "default", name: "broken" }))
    expect(broken.reason).toBe("ServerError")
    expect(broken.status?.code).toBe(500)
  })

  it("keeps the code and the Retry-After header of a failed answer", async () => {
    const busy = await failure(cluster().get(TrainJobs, { namespace: "default", name: "busy" }))
    expect([busy.reason, busy.code, busy.retryAfterMs]).toEqual(["ServerError", 503, 7000])
    const missing = await failure(cluster().get(TrainJobs, { namespace: "default", name: "missing" }))
    expect([missing.code, missing.retryAfterMs]).toEqual([404, undefined])
  })

  it("fails an answer that is not a Kubernetes object as a ServerError", async () => {
    expect((await failure(cluster().list(TrainJobs, "default", "x"))).reason).toBe("ServerError")
    // A body that does not parse, though it claims to be JSON: answered, so never "unreachable" (a write may
    // have been applied).
    const html = await failure(cluster().get(TrainJobs, { namespace: "default", name: "html" }))
    expect(html.reason).toBe("ServerError")
    expect(html.status?.reason).toBe("Malformed")
  })

  it("classifies a call with no answer within the timeout as Unanswered", async () => {
    const error = await failure(cluster(400).get(TrainJobs, { namespace: "default", name: "hang" }))
    expect(error.reason).toBe("Unanswered")
  })

  it("classifies a connection reset after sending as Unanswered", async () => {
    const error = await failure(cluster().get(TrainJobs, { namespace: "default", name: "reset" }))
    expect(error.reason).toBe("Unanswered")
  })

  it("classifies a refused connection as Unreachable", async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve))
    const port = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const error = await failure(makeKubeCluster(configFor(`http://127.0.0.1:${port}`), 400).get(TrainJobs, { namespace: "default", name: "a" }))
    expect(error.reason).toBe("Unreachable")
    expect(error.detail).toBe("ECONNREFUSED")
  })

  it("reuses one connection for calls made one after another", async () => {
    const shared = cluster()
    const before = connections
    for (const name of ["k1", "k2", "k3", "k4", "k5"]) await Effect.runPromise(shared.get(TrainJobs, { namespace: "default", name }))
    await Effect.runPromise(shared.mergePatch(TrainingRuntimes, { namespace: "default", name: "k6" }, { metadata: {} }))
    expect(connections - before).toBe(1)
    const calls = seen.filter((s) => /\/k[1-6]$/.test(s.url))
    expect(calls.map((s) => s.url.split("/").pop())).toEqual(["k1", "k2", "k3", "k4", "k5", "k6"])
  })

  it("opens a fresh connection after a reset one, and answers on it", async () => {
    const shared = cluster()
    expect((await failure(shared.get(TrainJobs, { namespace: "default", name: "reset" }))).reason).toBe("Unanswered")
    const object = await Effect.runPromise(shared.get(TrainJobs, { namespace: "default", name: "after-reset" }))
    expect(object.metadata.name).toBe("after-reset")
  })

  it("never puts the kubeconfig's token in an error", async () => {
    const errors = await Promise.all(["missing", "forbidden", "hang", "broken"].map((name) => failure(cluster(name === "hang" ? 400 : undefined).get(TrainJobs, { namespace: "default", name }))))
    for (const error of errors) expect(JSON.stringify({ ...error, reasons: error.reasons })).not.toContain(secret)
  })
})
