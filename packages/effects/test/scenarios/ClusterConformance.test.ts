// One suite, two faces: SimCluster over the simulator's in-process face (on TestClock), and KubeCluster
// over client-node and HTTP to the simulator server (real time: a call timeout no answer misses on a busy
// machine, and a short one only where no answer comes). Both must classify every answer and fault alike;
// the one documented difference is a refused call: in-process a refused connection (Unreachable), over
// HTTP the 503 a proxy answers when its connection is refused (ServerError, since the connection to the
// simulator is open before the call is known). Both: nothing applied.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit, Layer } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { type FaultRule, type KubeObject, Simulator, type SimulatorOptions, kubeconfigFor, startSimServer, type SimServer } from "@dispatch/sim"
import { Cluster, type ClusterShape, type PodLogOptions } from "../../src/Cluster.ts"
import type { ClusterError, ClusterErrorReason } from "../../src/ClusterError.ts"
import { KubeCluster } from "../../src/KubeCluster.ts"
import { ClusterTrainingRuntimes, Pods, TrainJobs, TrainingRuntimes, Workloads } from "../../src/ResourceKind.ts"
import { SimCluster } from "@dispatch/sim/cluster"
import { runOnTestClock, torchRuntime } from "../StartFixture.ts"

const namespace = "default"

interface Face {
  readonly name: string
  /** What a refused call looks like through this face. */
  readonly refused: ClusterErrorReason
  /** `unanswered`: the call is expected to go unanswered, so its timeout may be short. */
  run<A, E>(options: SimulatorOptions, effect: Effect.Effect<A, E, Cluster>, token?: string, unanswered?: boolean): Promise<{ exit: Exit.Exit<A, E>; sim: Simulator }>
}

const servers: Array<SimServer> = []
const tempDir = mkdtempSync(join(tmpdir(), "dispatch-effects-"))
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()))
  rmSync(tempDir, { recursive: true, force: true })
})

const inProcess: Face = {
  name: "SimCluster (in-process)",
  refused: "Unreachable",
  run: async (options, effect, token) => {
    const sim = new Simulator(options)
    const exit = await runOnTestClock(effect.pipe(Effect.provide(SimCluster(sim, { callMs: 1000, ...(token === undefined ? {} : { token }) }))))
    return { exit, sim }
  }
}

let configs = 0
const overHttp: Face = {
  name: "KubeCluster (client-node over HTTP)",
  refused: "ServerError",
  run: async (options, effect, token, unanswered) => {
    const sim = new Simulator(options)
    const server = await startSimServer({ simulator: sim })
    servers.push(server)
    const path = join(tempDir, `kubeconfig-${configs++}`)
    writeFileSync(path, kubeconfigFor(server, token === undefined ? {} : { token }))
    const exit = await Effect.runPromiseExit(effect.pipe(Effect.provide(Layer.orDie(KubeCluster({ kubeconfigPath: path, callMs: unanswered === true ? 400 : 30_000 })))))
    await server.close()
    return { exit, sim }
  }
}

const copy = (name: string, labels: Record<string, string> = {}): KubeObject => {
  const object = torchRuntime(name, "TrainingRuntime")
  return { ...object, metadata: { ...object.metadata, labels } }
}

const reasonOf = <A>(exit: Exit.Exit<A, ClusterError>): ClusterErrorReason | "success" => {
  if (Exit.isSuccess(exit)) return "success"
  const failure = exit.cause.reasons.find((r) => r._tag === "Fail")
  if (failure === undefined || failure._tag !== "Fail") throw new Error(String(exit.cause))
  return failure.error.reason
}

const valueOf = <A, E>(exit: Exit.Exit<A, E>): A => {
  if (Exit.isSuccess(exit)) return exit.value
  throw new Error(`expected success: ${String(exit.cause)}`)
}

/** A pod the simulator's kubelet starts (no nodeSelector) and no TrainJob ends: its container runs on. */
const pod: KubeObject = {
  apiVersion: "v1",
  kind: "Pod",
  metadata: { name: "p", namespace, labels: { "jobset.sigs.k8s.io/jobset-name": "tj" } },
  spec: { containers: [{ name: "node", image: "example.org/train:1", command: ["python", "train.py"] }] }
}

/** Waits (on the face's clock) until the pod's container runs. */
const runningPod = (c: ClusterShape) =>
  Effect.gen(function* () {
    for (;;) {
      const read = yield* c.get(Pods, { namespace, name: "p" })
      const statuses = (read["status"] as { containerStatuses?: ReadonlyArray<{ state?: Record<string, unknown> }> } | undefined)?.containerStatuses ?? []
      if (statuses[0]?.state?.["running"] !== undefined) return
      yield* Effect.sleep(100)
    }
  })

const withCluster = <A, E>(f: (cluster: ClusterShape) => Effect.Effect<A, E>): Effect.Effect<A, E, Cluster> =>
  Effect.gen(function* () {
    return yield* f(yield* Cluster)
  })

describe.each([inProcess, overHttp])("Cluster conformance: $name", (face) => {
  it("creates, reads back with a uid, and keeps fields it does not type", async () => {
    const { exit } = await face.run({}, withCluster((c) => Effect.andThen(c.create(TrainingRuntimes, copy("a")), c.get(TrainingRuntimes, { namespace, name: "a" }))))
    const read = valueOf(exit)
    expect(read.metadata.uid).toBeTypeOf("string")
    expect(read["spec"]).toEqual(copy("a")["spec"])
  })

  it("classifies a second create as AlreadyExists with the server's Status", async () => {
    const { exit } = await face.run({ objects: [copy("a")] }, withCluster((c) => c.create(TrainingRuntimes, copy("a"))))
    expect(reasonOf(exit)).toBe("AlreadyExists")
  })

  it("classifies a missing object as NotFound", async () => {
    const { exit } = await face.run({}, withCluster((c) => c.get(TrainJobs, { namespace, name: "nope" })))
    expect(reasonOf(exit)).toBe("NotFound")
  })

  it("lists by label selector", async () => {
    const { exit } = await face.run({ objects: [copy("a", { team: "x" }), copy("b", { team: "y" })] }, withCluster((c) => c.list(TrainingRuntimes, namespace, "team=x")))
    expect(valueOf(exit).map((o) => o.metadata.name)).toEqual(["a"])
  })

  it("applies a merge patch with a current resourceVersion and refuses a stale one as Conflict", async () => {
    const { exit, sim } = await face.run(
      { objects: [copy("a")] },
      withCluster((c) =>
        Effect.gen(function* () {
          const read = yield* c.get(TrainingRuntimes, { namespace, name: "a" })
          const patched = yield* c.mergePatch(TrainingRuntimes, { namespace, name: "a" }, { metadata: { labels: { owner: "me" } } }, { resourceVersion: read.metadata.resourceVersion ?? "" })
          const stale = yield* Effect.flip(c.mergePatch(TrainingRuntimes, { namespace, name: "a" }, { metadata: { labels: { owner: "you" } } }, { resourceVersion: read.metadata.resourceVersion ?? "" }))
          return { patched, stale }
        })
      )
    )
    const { patched, stale } = valueOf(exit)
    expect(patched.metadata.labels).toMatchObject({ owner: "me" })
    expect(stale.reason).toBe("Conflict")
    expect(sim.system.get("trainingruntimes", namespace, "a")?.metadata?.["labels"]).toMatchObject({ owner: "me" })
  })

  it("patches a Workload's status through the status subresource only", async () => {
    const workload: KubeObject = { apiVersion: "kueue.x-k8s.io/v1beta1", kind: "Workload", metadata: { name: "w", namespace }, spec: { queueName: "q", podSets: [{ name: "main", count: 1, template: { spec: { containers: [{ name: "c", image: "i" }] } } }] } }
    const { exit, sim } = await face.run(
      { objects: [workload] },
      withCluster((c) => c.mergePatch(Workloads, { namespace, name: "w" }, { status: { admissionChecks: [{ name: "check", state: "Ready", message: "", lastTransitionTime: "2026-01-01T00:00:00Z" }] } }, { status: true }))
    )
    valueOf(exit)
    expect(sim.system.get("workloads", namespace, "w")?.["status"]).toMatchObject({ admissionChecks: [{ name: "check", state: "Ready" }] })
  })

  it("deletes only when the uid precondition holds, and reports a missing object as NotFound", async () => {
    const { exit, sim } = await face.run(
      { objects: [copy("a")] },
      withCluster((c) =>
        Effect.gen(function* () {
          const wrong = yield* Effect.flip(c.delete(TrainingRuntimes, { namespace, name: "a" }, { preconditions: { uid: "not-its-uid" } }))
          const read = yield* c.get(TrainingRuntimes, { namespace, name: "a" })
          yield* c.delete(TrainingRuntimes, { namespace, name: "a" }, { propagation: "Background", preconditions: { uid: read.metadata.uid ?? "" } })
          const again = yield* Effect.flip(c.delete(TrainingRuntimes, { namespace, name: "a" }))
          return { wrong, again }
        })
      )
    )
    const { wrong, again } = valueOf(exit)
    expect(wrong.reason).toBe("Conflict")
    expect(again.reason).toBe("NotFound")
    expect(sim.system.get("trainingruntimes", namespace, "a")).toBeUndefined()
  })

  it("classifies a refused object as Invalid, with its causes", async () => {
    const { exit } = await face.run({}, withCluster((c) => Effect.flip(c.create(TrainingRuntimes, copy("Not_A_Name")))))
    const error = valueOf(exit)
    expect(error.reason).toBe("Invalid")
    expect(error.status?.code).toBe(422)
  })

  it("classifies an admission webhook's denial (403 naming the webhook) as Invalid, not Forbidden", async () => {
    // Trainer's webhook refuses a TrainJob whose runtime does not exist.
    const orphan = { apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainJob", metadata: { name: "orphan", namespace }, spec: { runtimeRef: { name: "no-such-runtime" } } }
    const { exit } = await face.run({}, withCluster((c) => Effect.flip(c.create(TrainJobs, orphan))))
    const error = valueOf(exit)
    expect(error.reason).toBe("Invalid")
    expect(error.status).toMatchObject({ code: 403, reason: "Forbidden" })
    expect(error.reasons[0]).toContain('admission webhook "')
    expect(error.reasons.join(" ")).toContain("no-such-runtime")
  })

  it("classifies a call the token may not make as Forbidden", async () => {
    const { exit, sim } = await face.run({ auth: { tokens: { reader: ["get", "list"] } } }, withCluster((c) => c.create(TrainingRuntimes, copy("a"))), "reader")
    expect(reasonOf(exit)).toBe("Forbidden")
    expect(sim.system.get("trainingruntimes", namespace, "a")).toBeUndefined()
  })

  it.each([
    ["refuse", { type: "refuse" }],
    ["drop", { type: "drop" }],
    ["delay beyond the call timeout", { type: "delay", ms: 3000 }],
    ["status 500", { type: "status", code: 500 }],
    ["status 503", { type: "status", code: 503 }]
  ] as const)("classifies a %s fault on create and leaves the store as the fault says", async (label, action) => {
    const faults: ReadonlyArray<FaultRule> = [{ verb: "create", resource: "trainingruntimes", action }]
    const { exit, sim } = await face.run({ faults }, withCluster((c) => c.create(TrainingRuntimes, copy("a"))), undefined, label === "drop" || label.startsWith("delay"))
    const applied = sim.system.get("trainingruntimes", namespace, "a") !== undefined
    const expected: Record<string, [ClusterErrorReason, boolean]> = {
      refuse: [face.refused, false],
      drop: ["Unanswered", true],
      "delay beyond the call timeout": ["Unanswered", true],
      "status 500": ["ServerError", false],
      "status 503": ["ServerError", false]
    }
    expect([reasonOf(exit), applied]).toEqual(expected[label])
  })

  it("keeps the code of a 429 and the wait its Retry-After asks for", async () => {
    const faults: ReadonlyArray<FaultRule> = [{ verb: "get", resource: "trainingruntimes", action: { type: "status", code: 429, retryAfterSeconds: 3 } }]
    const { exit } = await face.run({ faults }, withCluster((c) => Effect.flip(c.get(TrainingRuntimes, { namespace, name: "a" }))))
    const error = valueOf(exit)
    expect([error.reason, error.code, error.retryAfterMs]).toEqual(["ServerError", 429, 3000])
  })

  it("lists a cluster-scoped kind cluster-wide, whatever namespace it is asked for", async () => {
    const objects = [torchRuntime("torch-a"), torchRuntime("torch-b"), copy("namespaced")]
    const { exit } = await face.run({ objects }, withCluster((c) => c.list(ClusterTrainingRuntimes, namespace, "")))
    expect(valueOf(exit).map((o) => o.metadata.name)).toEqual(["torch-a", "torch-b"])
  })

  it("lists pods (a core kind, whose list items a real server leaves without apiVersion and kind)", async () => {
    const { exit } = await face.run({ objects: [pod] }, withCluster((c) => c.list(Pods, namespace, "jobset.sigs.k8s.io/jobset-name=tj")))
    expect(valueOf(exit).map((o) => [o.kind, o.metadata.name])).toEqual([["Pod", "p"]])
  })

  it("reads a pod's log: every line, the last N, and refusals worded as the API server words them", async () => {
    const { exit } = await face.run(
      { objects: [pod] },
      withCluster((c) =>
        Effect.gen(function* () {
          yield* runningPod(c)
          const read = (options: PodLogOptions) =>
            Effect.gen(function* () {
              const lines: Array<string> = []
              yield* c.podLog({ namespace, name: "p" }, options, (line) => void lines.push(line))
              return lines
            })
          const all = yield* read({})
          const last = yield* read({ tailLines: 1, container: "node" })
          const wrongContainer = yield* Effect.flip(read({ container: "nope" }))
          const previous = yield* Effect.flip(read({ previous: true }))
          return { all, last, wrongContainer, previous }
        })
      )
    )
    const { all, last, wrongContainer, previous } = valueOf(exit)
    expect(all.slice(0, 2)).toEqual(["[sim] starting container node (image example.org/train:1)", "+ python train.py"])
    expect(last).toEqual(all.slice(-1))
    expect([wrongContainer.status?.code, wrongContainer.status?.message]).toEqual([400, "container nope is not valid for pod p"])
    expect([previous.status?.code, previous.status?.message]).toEqual([400, 'previous terminated container "node" in pod "p" not found'])
  })

  it("tells the cluster's time: what its timestamps are written in", async () => {
    // In-process: the simulator's own clock, wherever it started. Over HTTP: this machine's clock, as
    // kubectl reads a real server's timestamps, so there the simulator's clock starts at real time.
    const startTime = face === overHttp ? { startTime: Date.now() } : {}
    const { exit } = await face.run({ objects: [copy("a")], ...startTime }, withCluster((c) => Effect.all([c.now, c.get(TrainingRuntimes, { namespace, name: "a" }), c.now])))
    const [before, object, after] = valueOf(exit)
    const created = Date.parse(String(object.metadata["creationTimestamp"]))
    // Timestamps are whole seconds.
    expect(created).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 - 60_000)
    expect(created).toBeLessThanOrEqual(after)
  })

  it("answers a call delayed within the call timeout", async () => {
    const faults: ReadonlyArray<FaultRule> = [{ verb: "get", action: { type: "delay", ms: 100 } }]
    const { exit } = await face.run({ objects: [copy("a")], faults }, withCluster((c) => c.get(TrainingRuntimes, { namespace, name: "a" })))
    expect(valueOf(exit).metadata.name).toBe("a")
  })
})
