// The declaration of the adapter's calls, held to the adapter: every operation of KubeCluster runs against
// the simulator over HTTP, in each mode, through a recording proxy; each request it sends must be granted by
// the declaration for that operation and mode, and every verb the derived rules grant must have been used.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer, request as httpRequest, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Layer } from "effect"
import { kubeconfigFor, startSimServer } from "@dispatch/sim"
import { describe, expect, it } from "vitest"
import { fc, test } from "@fast-check/vitest"
import { Cluster } from "../src/Cluster.ts"
import {
  ClusterPermissions,
  grantsOf,
  type Mode,
  Modes,
  type Operation,
  Operations,
  permits,
  rbacObjects,
  type RequestAttributes,
  rulesOf
} from "../src/ClusterPermissions.ts"
import { InFlight, makeInFlight } from "../src/InFlight.ts"
import { KubeCluster } from "../src/KubeCluster.ts"
import { find, findMany } from "../src/lifecycle/Find.ts"
import { probe } from "../src/lifecycle/Probe.ts"
import { stop } from "../src/lifecycle/Stop.ts"
import { sweep } from "../src/lifecycle/Sweep.ts"
import { hold, open, release } from "../src/lifecycle/Transitions.ts"
import { trainJobPods } from "../src/PodLogs.ts"
import { getIfExists } from "../src/ExistingObjects.ts"
import { ClusterTrainingRuntimes, TrainingRuntimes } from "../src/ResourceKind.ts"
import { awaitState, keyOf, lifecycleConfig, openOf, overHttp, simulatorOf, started } from "./lifecycle/LifecycleFixture.ts"
import { namespace, trainJobNameOf } from "./StartFixture.ts"

/** What kube-apiserver's RequestInfo makes of a request's method and path (the paths the adapter uses). */
export const attributesOf = (method: string, url: string): RequestAttributes & { readonly name?: string } => {
  const [path = "", query = ""] = url.split("?")
  const parts = path.split("/").filter((p) => p !== "").map(decodeURIComponent)
  // /api/v1/... is the core group; /apis/GROUP/VERSION/... any other.
  const rest = parts[0] === "api" ? parts.slice(2) : parts.slice(3)
  const group = parts[0] === "api" ? "" : (parts[1] ?? "")
  const namespaced = rest[0] === "namespaces" && rest.length >= 3
  const [resource = "", name, subresource] = namespaced ? rest.slice(2) : rest
  const namespaceOf = namespaced ? rest[1] : undefined
  const watching = new URLSearchParams(query).get("watch") === "true"
  const verb =
    method === "GET"
      ? name === undefined ? (watching ? "watch" : "list") : "get"
      : method === "POST" ? "create" : method === "PATCH" ? "patch" : method === "PUT" ? "update" : method === "DELETE" ? (name === undefined ? "deletecollection" : "delete") : method.toLowerCase()
  return { verb, group, resource, subresource, namespace: namespaceOf, ...(name === undefined ? {} : { name }) }
}

/** One request the adapter sent, and the operation running when it did. */
interface Sent {
  readonly operation: Operation
  readonly method: string
  readonly url: string
}

/** A proxy in front of the simulator server that records each request's method and path, for whichever
 * operation is running. */
const recordingProxy = async (target: URL, sent: Array<Sent>, current: () => Operation): Promise<{ readonly url: string; readonly server: Server }> => {
  const server = createServer((req, res) => {
    sent.push({ operation: current(), method: req.method ?? "", url: req.url ?? "" })
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    upstream.on("error", () => res.destroy())
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }
}

/** Runs every operation once, in `mode`, recording what each sent. */
const recordOperations = async (mode: Mode): Promise<ReadonlyArray<Sent>> => {
  const timing = overHttp.timing
  const world = simulatorOf({ mode }, timing)
  const config = lifecycleConfig(mode, timing)
  const sent: Array<Sent> = []
  let operation: Operation = "probe"
  const sim = await startSimServer({ simulator: world.sim, tickMs: 50 })
  const proxy = await recordingProxy(new URL(sim.url), sent, () => operation)
  const dir = mkdtempSync(join(tmpdir(), "dispatch-permissions-"))
  try {
    const path = join(dir, "kubeconfig")
    writeFileSync(path, kubeconfigFor({ url: proxy.url }))
    const as = <A, E, R>(op: Operation, effect: Effect.Effect<A, E, R>) => Effect.suspend(() => ((operation = op), effect))
    const backend = openOf(config)
    const program = Effect.gen(function* () {
      yield* as("probe", probe(config))
      yield* as("start", started(config, 1))
      yield* as("start", started(config, 2))
      yield* as("find", find(backend, keyOf(1)))
      yield* as("open", open(backend, keyOf(1)))
      yield* as("find", awaitState(backend, keyOf(1), "Running", 15_000))
      yield* as(
        "logs",
        Effect.gen(function* () {
          const cluster = yield* Cluster
          const pods = yield* trainJobPods(namespace, trainJobNameOf(1))
          for (const pod of pods) yield* cluster.podLog({ namespace, name: pod.name }, { tailLines: 5 }, () => undefined)
        })
      )
      yield* as("hold", hold(backend, keyOf(1)))
      yield* as("release", release(backend, keyOf(1)))
      yield* as("statusSync", findMany(backend, [keyOf(1), keyOf(2)]))
      yield* as("statusSync", stop(backend, keyOf(2)))
      yield* as("stop", stop(backend, keyOf(1), { waitMs: 10_000 }))
      // A Start whose TrainJob create is refused leaves (or removes) a copy no TrainJob owns: the branch
      // where Start or Stop deletes a runtime copy itself rather than leaving it to garbage collection.
      world.sim.setFaults([{ verb: "create", resource: "trainjobs", action: { type: "status", code: 403 } }])
      yield* as("start", Effect.result(started(config, 3)))
      world.sim.setFaults([])
      yield* as("stop", stop(backend, keyOf(3)))
      yield* as("sweep", sweep(backend, { graceMs: 0 }))
      // `dispatch runtimes`' calls (packages/cli's Runtimes.ts): the namespace's TrainingRuntimes, every
      // ClusterTrainingRuntime when it may list them, else each configured one read by name.
      yield* as(
        "runtimes",
        Effect.gen(function* () {
          const cluster = yield* Cluster
          yield* cluster.list(TrainingRuntimes, namespace, "")
          yield* cluster.list(ClusterTrainingRuntimes, namespace, "")
          yield* getIfExists(ClusterTrainingRuntimes, { name: "any" })
        })
      )
    })
    const layer = Layer.merge(Layer.orDie(KubeCluster({ kubeconfigPath: path, callMs: config.timeouts.callMs })), Layer.succeed(InFlight, makeInFlight()))
    await Effect.runPromise(program.pipe(Effect.provide(layer)))
    return sent
  } finally {
    await new Promise((resolve) => proxy.server.close(resolve))
    await sim.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

const describeSent = (s: Sent): string => `${s.operation}: ${s.method} ${s.url}`

/** `verb group/resource[/subresource]`, as a rule grants it. */
const grantKey = (verb: string, group: string, resource: string): string => `${verb} ${group}/${resource}`

describe("the adapter's calls, held to ClusterPermissions", () => {
  for (const mode of Modes) {
    it(`${mode} mode: every request is granted to its operation, and every granted verb is used`, { timeout: 120_000 }, async () => {
      const sent = await recordOperations(mode)
      const refused = sent.filter((s) => !permits(s.operation, mode, namespace, attributesOf(s.method, s.url)))
      expect(refused.map(describeSent)).toEqual([])
      // Every operation ran and sent something: a recording that saw nothing would prove nothing.
      expect(Operations.filter((op) => !sent.some((s) => s.operation === op))).toEqual([])
      const used = new Set(
        sent.map((s) => {
          const a = attributesOf(s.method, s.url)
          return grantKey(a.verb, a.group, a.subresource === undefined ? a.resource : `${a.resource}/${a.subresource}`)
        })
      )
      const { namespaced, clusterScoped } = rulesOf(mode)
      const granted = [...namespaced, ...clusterScoped].flatMap((r) => r.verbs.map((v) => grantKey(v, r.apiGroups[0] ?? "", r.resources[0] ?? "")))
      // Least privilege: the rules grant nothing no operation used, and nothing an operation only tries.
      for (const op of Operations) for (const g of grantsOf(op, mode).filter((g) => g.tried === true)) expect(granted).not.toContain(grantKey(g.verbs[0] ?? "", g.kind.group, g.kind.plural))
      expect(granted.filter((g) => !used.has(g))).toEqual([])
    })
  }
})

describe("attributesOf", () => {
  it("reads kube-apiserver's request attributes from the adapter's paths", () => {
    expect(attributesOf("GET", "/api/v1/namespaces/ns/pods/p/log?tailLines=5")).toEqual({ verb: "get", group: "", resource: "pods", subresource: "log", namespace: "ns", name: "p" })
    expect(attributesOf("GET", "/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes/t")).toEqual({ verb: "get", group: "trainer.kubeflow.org", resource: "clustertrainingruntimes", subresource: undefined, namespace: undefined, name: "t" })
    expect(attributesOf("GET", "/apis/kueue.x-k8s.io/v1beta1/namespaces/ns/workloads?labelSelector=a")).toMatchObject({ verb: "list", resource: "workloads", namespace: "ns" })
    expect(attributesOf("PATCH", "/apis/kueue.x-k8s.io/v1beta1/namespaces/ns/workloads/w/status")).toMatchObject({ verb: "patch", resource: "workloads", subresource: "status" })
    expect(attributesOf("POST", "/apis/trainer.kubeflow.org/v1alpha1/namespaces/ns/trainjobs").verb).toBe("create")
    expect(attributesOf("DELETE", "/apis/trainer.kubeflow.org/v1alpha1/namespaces/ns/trainjobs/j").verb).toBe("delete")
    expect(attributesOf("GET", "/api/v1/namespaces/ns/pods?watch=true").verb).toBe("watch")
  })
})

describe("ClusterPermissions", () => {
  // Groups, resources and subresources drawn apart, so that every part of a grant must match on its own.
  const declared = Operations.flatMap((op) => ClusterPermissions[op])
  const request = fc.record({
    operation: fc.constantFrom(...Operations),
    mode: fc.constantFrom(...Modes),
    verb: fc.constantFrom("get", "list", "create", "patch", "delete", "update", "watch"),
    group: fc.constantFrom(...new Set([...declared.map((g) => g.kind.group), "apps"])),
    resource: fc.constantFrom(...new Set([...declared.map((g) => g.kind.plural), "localqueues", "secrets"])),
    subresource: fc.constantFrom(undefined, "", "status", "log", "exec"),
    namespace: fc.constantFrom(namespace, "other", undefined)
  })

  test.prop([request], { numRuns: 2000 })("permits exactly what one of the operation's grants in the mode names, in the namespace", ({ operation, mode, verb, group, resource, subresource, namespace: ns }) => {
    const expected = grantsOf(operation, mode).some(
      (g) =>
        g.kind.group === group &&
        g.kind.plural === resource &&
        (g.subresource ?? "") === (subresource ?? "") &&
        (g.verbs as ReadonlyArray<string>).includes(verb) &&
        (g.kind.namespaced ? ns === namespace : ns === undefined)
    )
    expect(permits(operation, mode, namespace, { verb, group, resource, subresource, namespace: ns })).toBe(expected)
  })

  test.prop([fc.constantFrom(...Modes), fc.constantFrom(...Operations)])("the derived rules cover every grant of every operation but those only tried", (mode, operation) => {
    const { namespaced, clusterScoped } = rulesOf(mode)
    for (const g of grantsOf(operation, mode).filter((g) => g.tried !== true)) {
      const rules = g.kind.namespaced ? namespaced : clusterScoped
      const resource = g.subresource === undefined ? g.kind.plural : `${g.kind.plural}/${g.subresource}`
      const rule = rules.find((r) => r.apiGroups.includes(g.kind.group) && r.resources.includes(resource))
      expect(rule?.verbs).toEqual(expect.arrayContaining([...g.verbs]))
    }
  })

  it("grants Kueue's Workloads only in Kueue mode, and ClusterTrainingRuntimes only cluster-wide and read-only", () => {
    const all = (mode: Mode) => [...rulesOf(mode).namespaced, ...rulesOf(mode).clusterScoped]
    expect(all("plain").some((r) => r.apiGroups.includes("kueue.x-k8s.io"))).toBe(false)
    expect(rulesOf("kueue").namespaced.filter((r) => r.apiGroups.includes("kueue.x-k8s.io"))).toEqual([
      { apiGroups: ["kueue.x-k8s.io"], resources: ["workloads"], verbs: ["list", "patch"] },
      { apiGroups: ["kueue.x-k8s.io"], resources: ["workloads/status"], verbs: ["patch"] }
    ])
    for (const mode of Modes) expect(rulesOf(mode).clusterScoped).toEqual([{ apiGroups: ["trainer.kubeflow.org"], resources: ["clustertrainingruntimes"], verbs: ["get"] }])
  })

  it("permits a cluster-scoped resource only cluster-wide, and a namespaced one only in the namespace", () => {
    const runtime = { verb: "get", group: "trainer.kubeflow.org", resource: "clustertrainingruntimes" }
    expect(permits("start", "plain", namespace, runtime)).toBe(true)
    expect(permits("start", "plain", namespace, { ...runtime, namespace })).toBe(false)
    const job = { verb: "get", group: "trainer.kubeflow.org", resource: "trainjobs" }
    expect(permits("start", "plain", namespace, { ...job, namespace })).toBe(true)
    expect(permits("start", "plain", namespace, { ...job, namespace: "other" })).toBe(false)
    expect(permits("start", "plain", namespace, job)).toBe(false)
  })

  it("derives one rule per resource, sorted by group then resource, its verbs in the order of Verbs", () => {
    expect(rulesOf("plain").namespaced).toEqual([
      { apiGroups: [""], resources: ["pods"], verbs: ["list"] },
      { apiGroups: [""], resources: ["pods/log"], verbs: ["get"] },
      { apiGroups: ["trainer.kubeflow.org"], resources: ["trainingruntimes"], verbs: ["get", "list", "create", "patch", "delete"] },
      { apiGroups: ["trainer.kubeflow.org"], resources: ["trainjobs"], verbs: ["get", "list", "create", "patch", "delete"] }
    ])
    expect(rulesOf("kueue").namespaced.map((r) => r.resources[0])).toEqual(["pods", "pods/log", "workloads", "workloads/status", "trainingruntimes", "trainjobs"])
  })

  it("makes the five objects kubectl applies, named for the namespace and the ServiceAccount", () => {
    const labels = { "app.kubernetes.io/name": "dispatch", "app.kubernetes.io/component": "rbac" }
    const name = "dispatch-ml-robot"
    const roleRef = (kind: string) => ({ apiGroup: "rbac.authorization.k8s.io", kind, name })
    const subjects = [{ kind: "ServiceAccount", name: "robot", namespace: "ml" }]
    const rbac = "rbac.authorization.k8s.io/v1"
    expect(rbacObjects({ mode: "plain", namespace: "ml", serviceAccount: "robot" })).toEqual([
      { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "robot", namespace: "ml", labels } },
      { apiVersion: rbac, kind: "Role", metadata: { name, namespace: "ml", labels }, rules: rulesOf("plain").namespaced },
      { apiVersion: rbac, kind: "RoleBinding", metadata: { name, namespace: "ml", labels }, roleRef: roleRef("Role"), subjects },
      { apiVersion: rbac, kind: "ClusterRole", metadata: { name, labels }, rules: rulesOf("plain").clusterScoped },
      { apiVersion: rbac, kind: "ClusterRoleBinding", metadata: { name, labels }, roleRef: roleRef("ClusterRole"), subjects }
    ])
  })

  it("binds the Role in the namespace and the ClusterRole to the one ServiceAccount", () => {
    const objects = rbacObjects({ mode: "kueue", namespace: "ml", serviceAccount: "dispatch" })
    expect(objects.map((o) => o["kind"])).toEqual(["ServiceAccount", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"])
    const subjects = objects.filter((o) => String(o["kind"]).endsWith("Binding")).map((o) => o["subjects"])
    expect(subjects).toEqual([[{ kind: "ServiceAccount", name: "dispatch", namespace: "ml" }], [{ kind: "ServiceAccount", name: "dispatch", namespace: "ml" }]])
    expect(objects.find((o) => o["kind"] === "Role")?.["rules"]).toEqual(rulesOf("kueue").namespaced)
  })
})
