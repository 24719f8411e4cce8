// KubeCluster's own edge, against a bare node:http server: what client-node sends (content type, body,
// query) and how every kind of failure it throws is classified. The conformance suite covers the rest
// against the HTTP simulator.
import { createServer, type IncomingMessage, type Server, type ServerResponse, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { KubeConfig } from "@kubernetes/client-node"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { statusBody } from "@dispatch/sim"
import type { ClusterError } from "../src/ClusterError.ts"
import { makeKubeCluster, clusterErrorOfThrown, loadKubeConfig } from "../src/KubeCluster.ts"
import { TrainJobs, TrainingRuntimes } from "../src/ResourceKind.ts"
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { execFileSync } from "node:child_process"
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https"
import type { TLSSocket } from "node:tls"

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

// What a call that threw before its answer means for Start: nothing reached the server (Unreachable, safe to
// call a definite failure) or the request may have been applied (Unanswered, Find before retrying).
describe("a call that threw before its answer", () => {
  const thrown = (code: string) => Object.assign(new Error("transport"), { code })

  describe("clusterErrorOfThrown", () => {
    it.each(["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "UND_ERR_CONNECT_TIMEOUT"])("%s: nothing was sent", (code) => {
      expect(clusterErrorOfThrown("create trainjobs", thrown(code))).toMatchObject({ reason: "Unreachable", detail: code })
    })

    it.each(["ECONNRESET", "EPIPE", "UND_ERR_SOCKET", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "UND_ERR_ABORTED"])(
      "%s: the request may have been applied",
      (code) => {
        expect(clusterErrorOfThrown("create trainjobs", thrown(code))).toMatchObject({ reason: "Unanswered", detail: code })
      }
    )

    it("a call's own timeout is unanswered", () => {
      expect(clusterErrorOfThrown("create trainjobs", Object.assign(new Error("late"), { name: "TimeoutError" }))).toMatchObject({ reason: "Unanswered", detail: "TimeoutError" })
    })
  })
})

// Loading a kubeconfig: every way a file can be unusable is a ClusterError naming the file and why,
// never a throw later on the first call, and never the file's text.
describe("loading a kubeconfig", () => {
  const dir = mkdtempSync(join(tmpdir(), "dispatch-kubeconfig-"))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  const fileWith = (name: string, text: string): string => {
    const path = join(dir, name)
    writeFileSync(path, text)
    return path
  }

  const reasonsOf = async (path: string): Promise<string> => {
    const error = await Effect.runPromise(Effect.flip(loadKubeConfig(path)))
    expect(error._tag).toBe("ClusterError")
    return error.reasons.join("; ")
  }

  describe("loadKubeConfig", () => {
    it("refuses a kubeconfig with no current cluster, naming the file", async () => {
      const path = fileWith("empty.yaml", "apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n")
      const reasons = await reasonsOf(path)
      expect(reasons).toContain(path)
      expect(reasons).toContain("has no current cluster")
    })

    it("refuses a current-context that names no cluster", async () => {
      const path = fileWith("dangling.yaml", "apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts: [{name: c, context: {cluster: nowhere, user: u}}]\nclusters: []\nusers: [{name: u, user: {token: sekret}}]\n")
      const reasons = await reasonsOf(path)
      expect(reasons).toContain("has no current cluster")
      expect(reasons).not.toContain("sekret")
    })

    it("names a missing file's error code", async () => {
      const path = join(dir, "absent.yaml")
      const reasons = await reasonsOf(path)
      expect(reasons).toContain(path)
      expect(reasons).toContain("ENOENT")
    })

    it("loads one with a current cluster", async () => {
      const path = fileWith("good.yaml", "apiVersion: v1\nkind: Config\ncurrent-context: c\ncontexts: [{name: c, context: {cluster: k, user: u}}]\nclusters: [{name: k, cluster: {server: 'http://127.0.0.1:1'}}]\nusers: [{name: u, user: {token: t}}]\n")
      const config = await Effect.runPromise(loadKubeConfig(path))
      expect(config.getCurrentCluster()?.server).toBe("http://127.0.0.1:1")
    })
  })
})

// KubeCluster builds its requests itself, but every credential still comes from client-node's KubeConfig,
// call by call: a bearer token, an exec plugin's token, basic auth and impersonation, as headers on the
// request; and the server URL's path is kept in front of every API path.
describe("credentials from the kubeconfig, call by call", () => {
  interface Seen {
    readonly url: string
    readonly headers: IncomingHttpHeaders
  }

  const seen: Array<Seen> = []
  let server: Server
  let origin = ""

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ url: req.url ?? "", headers: req.headers })
      req.resume()
      req.on("end", () => {
        res.writeHead(200, { "content-type": "application/json" })
        res.end(JSON.stringify({ apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainJob", metadata: { name: "a", namespace: "default" } }))
      })
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })

  afterAll(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })

  const configWith = (user: Record<string, unknown>, serverUrl = origin): KubeConfig => {
    const config = new KubeConfig()
    config.loadFromOptions({
      clusters: [{ name: "c", server: serverUrl, skipTLSVerify: true }],
      users: [{ name: "u", ...user }],
      contexts: [{ name: "x", cluster: "c", user: "u" }],
      currentContext: "x"
    })
    return config
  }

  const getOnce = async (config: KubeConfig): Promise<Seen> => {
    const before = seen.length
    await Effect.runPromise(makeKubeCluster(config, 30_000).get(TrainJobs, { namespace: "default", name: "a" }))
    expect(seen.length).toBe(before + 1)
    return seen[before] as Seen
  }

  describe("KubeCluster's requests carry the KubeConfig's credentials", () => {
    it("sends the user's bearer token", async () => {
      expect((await getOnce(configWith({ token: "tok-1" }))).headers.authorization).toBe("Bearer tok-1")
    })

    it("sends a changed token on the next call of the same cluster, the kept credentials notwithstanding", async () => {
      const config = configWith({ token: "tok-1" })
      const cluster = makeKubeCluster(config, 30_000)
      const before = seen.length
      await Effect.runPromise(cluster.get(TrainJobs, { namespace: "default", name: "a" }))
      await Effect.runPromise(cluster.get(TrainJobs, { namespace: "default", name: "a" }))
      ;(config.getCurrentUser() as { token: string }).token = "tok-2"
      await Effect.runPromise(cluster.get(TrainJobs, { namespace: "default", name: "a" }))
      expect(seen.slice(before).map((request) => request.headers.authorization)).toEqual(["Bearer tok-1", "Bearer tok-1", "Bearer tok-2"])
    })

    it("sends the token an exec plugin prints, running the plugin as client-node does", async () => {
      const credential = JSON.stringify({ apiVersion: "client.authentication.k8s.io/v1", kind: "ExecCredential", status: { token: "from-exec" } })
      const exec = { apiVersion: "client.authentication.k8s.io/v1", command: process.execPath, args: ["-e", `process.stdout.write(${JSON.stringify(credential)})`], interactiveMode: "Never" }
      expect((await getOnce(configWith({ exec }))).headers.authorization).toBe("Bearer from-exec")
    })

    it("sends basic auth and the impersonated user", async () => {
      const headers = (await getOnce(configWith({ username: "ann", password: "pw", impersonateUser: "bob" }))).headers
      expect(headers.authorization).toBe(`Basic ${Buffer.from("ann:pw").toString("base64")}`)
      expect(headers["impersonate-user"]).toBe("bob")
    })

    it("keeps the server URL's path in front of the API path, and encodes a list's selector as client-node did", async () => {
      const got = await getOnce(configWith({ token: "t" }, `${origin}/clusters/c-1`))
      expect(got.url).toBe("/clusters/c-1/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/a")
      const before = seen.length
      await Effect.runPromise(Effect.exit(makeKubeCluster(configWith({ token: "t" }), 30_000).list(TrainJobs, "default", "a=b,c in (d)")))
      expect(seen[before]?.url).toBe("/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs?labelSelector=a%3Db%2Cc+in+%28d%29")
    })
  })
})

// KubeCluster over TLS, as the kubeconfig says: the cluster's CA, its tls-server-name and the user's client
// certificate all reach the pooled connections (client-node hands them over through its public
// applyToHTTPSOptions), calls share one TLS connection, and a connection the kubeconfig's TLS settings
// would refuse is refused. The certificates are made for the test by openssl.
describe("TLS as the kubeconfig says", () => {
  const dir = mkdtempSync(join(tmpdir(), "dispatch-kube-tls-"))
  const file = (name: string): string => join(dir, name)
  const openssl = (...args: ReadonlyArray<string>): void => void execFileSync("openssl", args, { cwd: dir, stdio: "pipe" })
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

  // A CA, a server certificate it signed for the name api.internal only (not for 127.0.0.1), a client
  // certificate it signed for alice, and another CA that signed nothing here.
  const makeCertificates = (): void => {
    for (const ca of ["ca", "other-ca"]) openssl("req", "-x509", ...ec, "-keyout", `${ca}.key`, "-out", `${ca}.crt`, "-days", "2", "-subj", `/CN=${ca}`)
    writeFileSync(file("server.ext"), "subjectAltName=DNS:api.internal\n")
    openssl("req", ...ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=api.internal")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.crt", "-days", "2", "-extfile", "server.ext")
    openssl("req", ...ec, "-keyout", "alice.key", "-out", "alice.csr", "-subj", "/CN=alice")
    openssl("x509", "-req", "-in", "alice.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "alice.crt", "-days", "2")
  }

  const base64 = (name: string): string => readFileSync(file(name)).toString("base64")

  let server: HttpsServer
  let url = ""
  let handshakes = 0
  const clients: Array<string> = []

  // A kubeconfig for the test server, as a file (loaded as dispatch loads one).
  const kubeconfig = (name: string, cluster: Record<string, unknown>): string => {
    const path = file(`${name}.kubeconfig`)
    const config = {
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "c", cluster: { server: url, ...cluster } }],
      users: [{ name: "u", user: { "client-certificate-data": base64("alice.crt"), "client-key-data": base64("alice.key") } }],
      contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
      "current-context": "x"
    }
    writeFileSync(path, JSON.stringify(config))
    return path
  }

  const clusterOf = (path: string) => Effect.runPromise(Effect.map(loadKubeConfig(path), (config) => makeKubeCluster(config, 10_000)))

  beforeAll(async () => {
    makeCertificates()
    // The server asks for a client certificate and accepts only one its CA signed.
    server = createHttpsServer({ key: readFileSync(file("server.key")), cert: readFileSync(file("server.crt")), ca: readFileSync(file("ca.crt")), requestCert: true, rejectUnauthorized: true }, (req, res) => {
      clients.push(String((req.socket as TLSSocket).getPeerCertificate().subject?.CN ?? ""))
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainJob", metadata: { name: (req.url ?? "").split("/").pop(), namespace: "default" } }))
    })
    server.on("secureConnection", () => void handshakes++)
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
  })

  afterAll(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    rmSync(dir, { recursive: true, force: true })
  })

  describe("KubeCluster over TLS", () => {
    it("verifies the server with the kubeconfig's CA and tls-server-name, presents the user's certificate, and keeps one connection", async () => {
      const cluster = await clusterOf(kubeconfig("good", { "certificate-authority-data": base64("ca.crt"), "tls-server-name": "api.internal" }))
      const before = handshakes
      for (const name of ["t1", "t2", "t3"]) {
        const read = await Effect.runPromise(cluster.get(TrainJobs, { namespace: "default", name }))
        expect(read.metadata.name).toBe(name)
      }
      expect(clients.slice(-3)).toEqual(["alice", "alice", "alice"])
      expect(handshakes - before).toBe(1)
    })

    it("refuses a server its CA did not sign, and one whose certificate does not name the server it asked for", async () => {
      const otherCa = await clusterOf(kubeconfig("other-ca", { "certificate-authority-data": base64("other-ca.crt"), "tls-server-name": "api.internal" }))
      const wrongName = await clusterOf(kubeconfig("no-name", { "certificate-authority-data": base64("ca.crt") }))
      for (const cluster of [otherCa, wrongName]) {
        const error = await Effect.runPromise(Effect.flip(cluster.get(TrainJobs, { namespace: "default", name: "t" })))
        expect(error.reason).toBe("Unreachable")
      }
    })

    it("connects without checking the server when the kubeconfig says insecure-skip-tls-verify", async () => {
      const cluster = await clusterOf(kubeconfig("insecure", { "insecure-skip-tls-verify": true }))
      expect((await Effect.runPromise(cluster.get(TrainJobs, { namespace: "default", name: "t4" }))).metadata.name).toBe("t4")
    })
  })
})
