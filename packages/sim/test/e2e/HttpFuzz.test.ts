// A seeded fuzz of the HTTP face: thousands of hostile requests (odd methods and paths, malformed
// query parameters, wrong media types, broken, huge and deeply nested bodies, random JSON patches,
// corrupted protobuf bodies)
// against one server. Every one must be answered, on a connection that stays usable, with no 5xx but
// the documented etcd size refusal; and the real kubectl must still work on the same server afterwards.
import { execFile } from "node:child_process"
import { writeFileSync } from "node:fs"
import { Agent, type IncomingMessage, request } from "node:http"
import type { Duplex } from "node:stream"
import { join } from "node:path"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Resources } from "../../src/kinds/Builtin.ts"
import { type Served, runtime, serve, trainJob } from "../HttpFixture.ts"
import { protobufBody } from "../ProtobufEncoder.ts"

interface FuzzRequest {
  readonly method: string
  readonly path: string
  readonly query: ReadonlyArray<readonly [string, string]>
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | Uint8Array | undefined
}

interface Answer {
  readonly status: number
  readonly contentType: string
  readonly body: string
}

const runs = 3_000
const seed = 20_261_201

// node:http refuses to send a path with characters outside 0x21-0xff; percent-encode those.
const sendable = (path: string): string => path.replace(/[^\u0021-\u007e]/gu, (c) => encodeURIComponent(c))

const namespaces = ["default", "fuzz", "kube-system", ""]
const names = ["a", "b", "job-1", "torch-distributed", "", "UPPER", "x".repeat(300)]
const groupVersions = Resources.flatMap((r) => r.versions.map((v) => (r.group === "" ? `/api/${v}` : `/apis/${r.group}/${v}`)))

const resourcePath = fc
  .record({
    prefix: fc.constantFrom(...new Set(groupVersions)),
    resource: fc.constantFrom(...Resources.map((r) => r.plural), "pods", "trainjob"),
    namespace: fc.option(fc.constantFrom(...namespaces), { nil: undefined }),
    name: fc.option(fc.constantFrom(...names), { nil: undefined }),
    status: fc.boolean(),
    extra: fc.option(fc.constantFrom("status", "log", "scale", ""), { nil: undefined })
  })
  .map(({ prefix, resource, namespace, name, status, extra }) =>
    [prefix, namespace === undefined ? "" : `/namespaces/${namespace}`, `/${resource}`, name === undefined ? "" : `/${name}`, status && name !== undefined ? "/status" : "", extra === undefined ? "" : `/${extra}`].join("")
  )

const documentPath = fc.constantFrom(
  "/",
  "/version",
  "/api",
  "/apis",
  "/api/v1",
  "/apis/trainer.kubeflow.org",
  "/apis/trainer.kubeflow.org/v1alpha1",
  "/apis/kueue.x-k8s.io/v1beta2",
  "/openapi/v2",
  "/openapi/v3",
  "/openapi/v3/api/v1",
  "/openapi/v3/apis/trainer.kubeflow.org/v1alpha1",
  "/healthz",
  "*"
)

// Breaks a path the ways hostile clients do: doubled or trailing slashes, dot segments, bad escapes.
const mangled = (path: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.tuple(path, fc.constantFrom("//", "/", "/..", "/.", "%", "%zz", "%00", "%2F", "%ff", "é", "\\", "?", "#x", ";a=b"), fc.nat()).map(([p, piece, at]) => {
    const i = p.length === 0 ? 0 : at % (p.length + 1)
    return `${p.slice(0, i)}${piece}${p.slice(i)}`
  })

const anyPath = fc.oneof(
  { weight: 6, arbitrary: resourcePath },
  { weight: 1, arbitrary: documentPath },
  { weight: 3, arbitrary: mangled(fc.oneof(resourcePath, documentPath)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }).map((s) => `/${s}`) },
  { weight: 1, arbitrary: fc.constantFrom("//", "///", "//api//v1", "//apis/trainer.kubeflow.org/v1alpha1/trainjobs", "http://localhost/api/v1/namespaces") }
)

const hostileNumbers = ["", "0", "1", "5", "-1", "abc", "0x10", "1e400", "1e3", "1.5", "+3", " 7", "007", "2147484", "4294967296", "9007199254740993", "9223372036854775808", "18446744073709551616", "NaN", "Infinity"]
const queryValue = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...hostileNumbers) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "true",
      "false",
      "1",
      "All",
      "Strict",
      "Warn",
      "Ignore",
      "Background",
      "Foreground",
      "Orphan",
      "None",
      "Metadata",
      "Object",
      "a=b",
      "a==b,c!=d",
      "a in (x,y)",
      "a notin (",
      "((",
      "!a",
      "!",
      "=",
      "metadata.name=a",
      "metadata.namespace!=default",
      "spec.x=1",
      "kueue.x-k8s.io/queue-name=team",
      "eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiJhXHUwMDAwIn0",
      "bm90IGpzb24"
    )
  },
  { weight: 2, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 20 }) }
)
const queryKey = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.constantFrom(
      "labelSelector",
      "fieldSelector",
      "limit",
      "continue",
      "resourceVersion",
      "resourceVersionMatch",
      "timeoutSeconds",
      "watch",
      "dryRun",
      "fieldValidation",
      "propagationPolicy",
      "includeObject",
      "fieldManager",
      "pretty",
      "allowWatchBookmarks"
    )
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 10 }) }
)

const headerText = fc.string({ maxLength: 40 }).map((s) => s.replace(/[^\u0020-\u007e]/gu, ""))
const contentType = fc.oneof(
  fc.constantFrom(
    "application/json",
    "application/json; charset=utf-8",
    "application/merge-patch+json",
    "application/json-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
    "application/yaml",
    "application/vnd.kubernetes.protobuf",
    "text/plain",
    ""
  ),
  headerText
)
const accept = fc.oneof(
  fc.constantFrom(
    "application/json",
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
    "application/json;as=Table;v=v1beta1;g=meta.k8s.io",
    "application/vnd.kubernetes.protobuf",
    "*/*",
    ""
  ),
  headerText
)

// A nested array or object of the given depth, as JSON or YAML flow text.
const nested = fc.record({ depth: fc.constantFrom(2, 100, 511, 512, 513, 2_000, 20_000, 200_000), object: fc.boolean() }).map(({ depth, object }) =>
  object ? `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}` : `${"[".repeat(depth)}1${"]".repeat(depth)}`
)

const wellFormed = fc
  .record({
    base: fc.constantFrom(
      trainJob("a"),
      trainJob("b", { labels: { "kueue.x-k8s.io/queue-name": "team" } }),
      trainJob("job-1", { suspend: true }),
      runtime("a"),
      { apiVersion: "v1", kind: "Namespace", metadata: { name: "fuzz" } },
      { apiVersion: "kueue.x-k8s.io/v1beta2", kind: "AdmissionCheck", metadata: { name: "a" }, spec: { controllerName: "x.io/c" } }
    ),
    at: fc.array(fc.constantFrom("metadata", "spec", "status", "kind", "apiVersion", "labels", "resourceVersion", "__proto__", "spec.trainer", "metadata.finalizers"), { maxLength: 3 }),
    value: fc.jsonValue({ maxDepth: 4 })
  })
  .map(({ base, at, value: sent }) => {
    const copy = JSON.parse(JSON.stringify(base)) as Record<string, any>
    for (const key of at) {
      const [outer, inner] = key.split(".")
      const value = JSON.parse(JSON.stringify(sent)) as unknown
      if (inner === undefined) copy[outer ?? "x"] = value
      else if (typeof copy[outer ?? "x"] === "object" && copy[outer ?? "x"] !== null) copy[outer ?? "x"][inner] = value
    }
    return JSON.stringify(copy)
  })

const pointer = fc.oneof(
  fc.constantFrom("", "/", "/metadata", "/metadata/labels", "/metadata/labels/a", "/spec", "/spec/suspend", "/spec/trainer/numNodes", "/status", "/metadata/resourceVersion", "/-", "/spec/x/0", "/~2", "/metadata/finalizers/-"),
  fc.array(fc.constantFrom("spec", "metadata", "a", "0", "-", "~0", "~1"), { maxLength: 6 }).map((parts) => `/${parts.join("/")}`),
  fc.string({ maxLength: 12 })
)
const patchOp = fc.record(
  {
    op: fc.constantFrom("add", "remove", "replace", "move", "copy", "test", "bogus"),
    path: pointer,
    from: pointer,
    value: fc.jsonValue({ maxDepth: 3 })
  },
  { requiredKeys: ["op"] }
)
const jsonPatchBody = fc.oneof(
  fc.array(patchOp, { maxLength: 6 }).map((ops) => JSON.stringify(ops)),
  // Copies that double the document each time: bounded by the copy budget, not the server's memory.
  fc.integer({ min: 1, max: 60 }).map((n) => JSON.stringify(Array.from({ length: n }, (_, i) => ({ op: "copy", from: "/metadata", path: `/metadata/annotations${i}` }))))
)

const body = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  { weight: 5, arbitrary: wellFormed },
  { weight: 3, arbitrary: jsonPatchBody },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 5 }).map((v) => JSON.stringify(v)) },
  { weight: 2, arbitrary: nested },
  { weight: 1, arbitrary: nested.map((n) => `a: ${n}`) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 3_000 }).map((d) => Array.from({ length: d }, (_, i) => `${" ".repeat(i)}k:`).join("\n")) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 5_000 }).map((d) => `${"- ".repeat(d)}1`) },
  { weight: 2, arbitrary: fc.string({ maxLength: 60 }) },
  { weight: 1, arbitrary: fc.constantFrom("{", "[", '{"a":', "null", "true", "1e400", '"\\ud800"', "{}", "[]", "{\"kind\":\"Status\"}", "--- !!binary x", "*a", "&a [*a, *a]") }
)

const hostileHeaders = fc.record(
  {
    "Content-Type": contentType,
    Accept: accept,
    Authorization: headerText.map((t) => `Bearer ${t}`),
    "X-Fuzz": headerText,
    Connection: fc.constantFrom("Upgrade", "keep-alive"),
    Upgrade: fc.constantFrom("websocket", "SPDY/3.1", "h2c")
  },
  { requiredKeys: [] }
)
const hostileQuery = fc.array(fc.tuple(queryKey, queryValue), { maxLength: 5 })

// Anything at all: odd methods, paths, queries, headers and bodies, independently drawn.
const hostile: fc.Arbitrary<FuzzRequest> = fc.record({
  method: fc.oneof({ weight: 12, arbitrary: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE") }, { weight: 1, arbitrary: fc.constantFrom("HEAD", "OPTIONS", "TRACE", "PROPFIND", "CONNECT") }),
  path: anyPath.map(sendable),
  query: hostileQuery,
  headers: hostileHeaders,
  body
})

// Calls a client could mean, on objects that exist or soon will, with hostile parts mixed in: these
// reach past the front door into the verbs, validation, admission, the controllers and watches.
const jobs = (namespace: string, name?: string): string => `/apis/trainer.kubeflow.org/v1alpha1/namespaces/${namespace}/trainjobs${name === undefined ? "" : `/${name}`}`
const jobName = fc.constantFrom("a", "b", "c", "job-1")
const jobNamespace = fc.constantFrom("default", "fuzz")
const json = { "Content-Type": "application/json" }
const meant: fc.Arbitrary<FuzzRequest> = fc.oneof(
  fc.record({ namespace: jobNamespace, name: jobName, queued: fc.boolean(), suspend: fc.boolean(), query: hostileQuery }).map(({ namespace, name, queued, suspend, query }) => ({
    method: "POST",
    path: jobs(namespace),
    query,
    headers: json,
    body: JSON.stringify(trainJob(name, { suspend, ...(queued ? { labels: { "kueue.x-k8s.io/queue-name": "team" } } : {}) }))
  })),
  fc.record({ name: jobName }).map(({ name }) => ({ method: "POST", path: "/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes", query: [], headers: json, body: JSON.stringify(runtime(name)) })),
  // Over etcd's 1.5 MiB (refused by the store) and over the 3 MiB body limit (refused at the door),
  // in a pod spec, which the simulator keeps as sent.
  fc.constantFrom(1_600_000, 3_200_000).map((bytes) => ({
    method: "POST",
    path: "/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes",
    query: [],
    headers: json,
    body: JSON.stringify(runtime("big")).replace('"containers":[', `"padding":"${"x".repeat(bytes)}","containers":[`)
  })),
  fc.constant({ method: "POST", path: "/api/v1/namespaces", query: [], headers: json, body: JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: "fuzz" } }) }),
  fc.record({ namespace: jobNamespace, name: jobName, body: wellFormed, status: fc.boolean(), query: hostileQuery }).map(({ namespace, name, body, status, query }) => ({
    method: "PUT",
    path: `${jobs(namespace, name)}${status ? "/status" : ""}`,
    query,
    headers: json,
    body
  })),
  fc
    .record({ namespace: jobNamespace, name: jobName, labels: fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.string({ maxLength: 8 }), fc.constant(null))), suspend: fc.option(fc.boolean()), query: hostileQuery })
    .map(({ namespace, name, labels, suspend, query }) => ({
      method: "PATCH",
      path: jobs(namespace, name),
      query,
      headers: { "Content-Type": "application/merge-patch+json" },
      body: JSON.stringify({ metadata: { labels }, ...(suspend === null ? {} : { spec: { suspend } }) })
    })),
  fc.record({ namespace: jobNamespace, name: jobName, body: jsonPatchBody, status: fc.boolean() }).map(({ namespace, name, body, status }) => ({
    method: "PATCH",
    path: `${jobs(namespace, name)}${status ? "/status" : ""}`,
    query: [],
    headers: { "Content-Type": "application/json-patch+json" },
    body
  })),
  fc.record({ namespace: jobNamespace, name: jobName, policy: fc.constantFrom("Background", "Foreground", "Orphan", "Never"), query: hostileQuery }).map(({ namespace, name, policy, query }) => ({
    method: "DELETE",
    path: jobs(namespace, name),
    query: [["propagationPolicy", policy] as const, ...query],
    headers: {},
    body: undefined
  })),
  fc.record({ namespace: fc.option(jobNamespace, { nil: undefined }), query: hostileQuery, watch: fc.boolean(), table: fc.boolean() }).map(({ namespace, query, watch, table }) => ({
    method: "GET",
    path: namespace === undefined ? "/apis/trainer.kubeflow.org/v1alpha1/trainjobs" : jobs(namespace),
    query: watch ? [["watch", "true"] as const, ...query] : query,
    headers: table ? { Accept: "application/json;as=Table;v=v1;g=meta.k8s.io,application/json" } : {},
    body: undefined
  }))
)

// kubectl's protobuf bodies for built-in kinds, sent whole or with bytes overwritten and cut short.
const protobufSamples: ReadonlyArray<{ readonly path: string; readonly body: Uint8Array }> = [
  { path: "/api/v1/namespaces", body: protobufBody("v1", "Namespace", "core.v1.Namespace", { metadata: { name: "fuzz-pb", labels: { a: "b" } }, spec: {}, status: {} }) },
  {
    path: "/apis/batch/v1/namespaces/fuzz/jobs",
    body: protobufBody("batch/v1", "Job", "batch.v1.Job", { metadata: { name: "pb" }, spec: { template: { metadata: {}, spec: { containers: [{ name: "c", image: "busybox", resources: { limits: { cpu: "1" } } }], restartPolicy: "Never" } } } })
  },
  { path: "/api/v1/namespaces/default/pods", body: protobufBody("v1", "Pod", "core.v1.Pod", { metadata: { name: "pb", creationTimestamp: "2026-01-01T00:00:00Z" }, spec: { containers: [{ name: "c", image: "busybox", ports: [{ containerPort: 80 }] }] } }) },
  { path: "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", body: protobufBody("authorization.k8s.io/v1", "SelfSubjectAccessReview", "authorization.v1.SelfSubjectAccessReview", { metadata: {}, spec: { resourceAttributes: { verb: "create", resource: "trainjobs" } } }) },
  { path: jobs("default"), body: protobufBody("trainer.kubeflow.org/v1alpha1", "TrainJob", "core.v1.Namespace", { metadata: { name: "pb" } }) }
]
const protobufRequest: fc.Arbitrary<FuzzRequest> = fc
  .record({ sample: fc.constantFrom(...protobufSamples), overwrite: fc.array(fc.tuple(fc.nat(), fc.nat({ max: 255 })), { maxLength: 3 }), cut: fc.option(fc.nat(), { nil: undefined }) })
  .map(({ sample, overwrite, cut }) => {
    const bytes = Uint8Array.from(sample.body)
    for (const [at, value] of overwrite) bytes[at % bytes.length] = value
    return {
      method: "POST",
      path: sample.path,
      query: [],
      headers: { "Content-Type": "application/vnd.kubernetes.protobuf", Accept: "application/vnd.kubernetes.protobuf,application/json" },
      body: cut === undefined ? bytes : bytes.subarray(0, cut % (bytes.length + 1))
    }
  })

const fuzzRequest: fc.Arbitrary<FuzzRequest> = fc.oneof({ weight: 2, arbitrary: meant }, { weight: 3, arbitrary: hostile }, { weight: 1, arbitrary: protobufRequest })

const agent = new Agent({ keepAlive: true, maxSockets: 1 })

// One request. A watch is judged by its status line and then left; everything else is read to its end.
const send = (served: Served, fuzz: FuzzRequest): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const search = new URLSearchParams(fuzz.query.map(([k, v]): [string, string] => [k, v])).toString()
    const target = search === "" ? fuzz.path : `${fuzz.path}?${search}`
    const headers = Object.fromEntries(Object.entries(fuzz.headers).filter(([, v]) => v !== ""))
    const req = request(`${served.server.url}`, { method: fuzz.method, path: target, headers, agent, timeout: 60_000 }, (res) => {
      const status = res.statusCode ?? 0
      const contentType = String(res.headers["content-type"] ?? "")
      if (status === 200 && res.headers["transfer-encoding"] === "chunked" && fuzz.method === "GET" && !("content-length" in res.headers)) {
        res.destroy()
        resolve({ status, contentType, body: "" })
        return
      }
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (chunk: string) => (text += chunk))
      res.on("end", () => resolve({ status, contentType, body: text }))
      res.on("error", reject)
    })
    // Node's client hands the answer to a CONNECT (or a switched protocol) over with its raw socket.
    const tunnel = (res: IncomingMessage, socket: Duplex, head: Buffer): void => {
      let text = head.toString("utf8")
      socket.setEncoding("utf8")
      socket.on("data", (chunk: string) => (text += chunk))
      socket.on("end", () => {
        socket.destroy()
        resolve({ status: res.statusCode ?? 0, contentType: String(res.headers["content-type"] ?? ""), body: text })
      })
      socket.on("error", reject)
    }
    req.on("connect", tunnel)
    req.on("upgrade", tunnel)
    req.on("timeout", () => req.destroy(new Error(`no answer within 60 s to ${fuzz.method} ${target}`)))
    req.on("error", reject)
    req.end(fuzz.body)
  })

const etcdRefusal = (answer: Answer): boolean =>
  answer.status === 500 && (JSON.parse(answer.body) as { message?: unknown }).message === "etcdserver: request is too large"

// The other 500 a real server answers a client's mistake with: a built-in kind's apply configuration
// naming a field its type does not declare, which fails the conversion to a typed value.
const typedConversionRefusal = (answer: Answer): boolean => {
  const message = (JSON.parse(answer.body) as { message?: unknown }).message
  return answer.status === 500 && typeof message === "string" && message.startsWith("failed to create typed patch object (") && message.endsWith("field not declared in schema")
}

const kubectl = (served: Served, ...args: ReadonlyArray<string>): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    execFile("kubectl", [...args, "--request-timeout=20s"], { env: served.env, timeout: 40_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
    )
  })

describe("the HTTP face under a fuzz", () => {
  let served: Served
  beforeAll(async () => {
    served = await serve({ seed, controllers: { kueue: { queues: { team: { gpus: 2, admissionChecks: ["capacity"] } } } } })
  })
  afterAll(async () => {
    agent.destroy()
    await served.close()
  })

  it(`answers ${runs} hostile requests with no 5xx but the real server's own (etcd's size refusal, a typed apply's), and kubectl still works`, async () => {
    const statuses = new Map<number, number>()
    await fc.assert(
      fc.asyncProperty(fuzzRequest, async (fuzz) => {
        const answer = await send(served, fuzz)
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
        expect(answer.status, answer.body.slice(0, 500)).toBeGreaterThanOrEqual(200)
        if (answer.status >= 500) expect(etcdRefusal(answer) || typedConversionRefusal(answer), answer.body.slice(0, 500)).toBe(true)
        expect(answer.status).toBeLessThan(600)
        if (fuzz.method !== "HEAD" && answer.body !== "") {
          expect(answer.contentType).toBe("application/json")
          const parsed = JSON.parse(answer.body) as { kind?: unknown; code?: unknown }
          if (answer.status >= 300) expect(parsed).toMatchObject({ kind: "Status", code: answer.status })
        }
      }),
      { seed, numRuns: runs, endOnFailure: true }
    )
    // The fuzz reached past the front door: objects were written, refusals of many kinds were given.
    expect(statuses.get(201) ?? 0).toBeGreaterThan(0)
    expect(statuses.get(500) ?? 0, "etcd's size refusals").toBeGreaterThan(0)
    for (const code of [400, 404, 405, 409, 413, 415, 422]) expect(statuses.get(code) ?? 0, `answers with ${code}`).toBeGreaterThan(0)

    const file = join(served.dir, "after-fuzz.json")
    writeFileSync(file, JSON.stringify(trainJob("after-fuzz")))
    const created = await kubectl(served, "create", "-f", file)
    expect(created.stderr).toBe("")
    expect(created.code).toBe(0)
    const listed = await kubectl(served, "get", "trainjobs", "-A")
    expect(listed.stderr).toBe("")
    expect(listed.code).toBe(0)
    expect(listed.stdout).toMatch(/^default\s+after-fuzz\s/m)
  }, 600_000)
})
