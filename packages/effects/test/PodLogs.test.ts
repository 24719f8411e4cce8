// trainJobPods: the pods of a TrainJob as the logs command reads them. Through the simulator: which pods
// are found (the JobSet label, the namespace), each node's index from its labels, a replaced pod's newest
// copy, and every failure of the list call as a typed ClusterError. Through a given list: the rules
// themselves, and a property over any list of pods.
import { Effect, Exit, Layer } from "effect"
import { fc, it as prop } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import type { FaultAction } from "@dispatch/sim"
import { SimCluster } from "@dispatch/sim/cluster"
import { Cluster, type ClusterShape } from "../src/Cluster.ts"
import type { ClusterErrorReason } from "../src/ClusterError.ts"
import type { KubeResource } from "../src/KubeObjects.ts"
import { trainJobPods } from "../src/PodLogs.ts"
import { namespace, runOnTestClock, simOf, type RecordedSim } from "./StartFixture.ts"

const jobSetLabel = "jobset.sigs.k8s.io/jobset-name"
const jobIndexLabel = "jobset.sigs.k8s.io/job-index"
const completionLabel = "batch.kubernetes.io/job-completion-index"

/** A pod as Trainer's JobSet makes it: its JobSet's label, the given index labels and containers. */
const pod = (
  name: string,
  options: { jobSet?: string; namespace?: string; jobIndex?: number; completion?: number; containers?: ReadonlyArray<string> } = {}
) => ({
  apiVersion: "v1",
  kind: "Pod",
  metadata: {
    name,
    namespace: options.namespace ?? namespace,
    labels: {
      [jobSetLabel]: options.jobSet ?? "tj-a",
      ...(options.jobIndex === undefined ? {} : { [jobIndexLabel]: String(options.jobIndex) }),
      ...(options.completion === undefined ? {} : { [completionLabel]: String(options.completion) })
    }
  },
  spec: { containers: (options.containers ?? ["node"]).map((c) => ({ name: c, image: "registry.example/train:1" })) }
})

const store = (recorded: RecordedSim, ...pods: ReadonlyArray<ReturnType<typeof pod>>): RecordedSim => {
  for (const p of pods) recorded.sim.system.create("pods", p)
  return recorded
}

const throughSim = (recorded: RecordedSim, trainJob = "tj-a", inNamespace = namespace) =>
  runOnTestClock(trainJobPods(inNamespace, trainJob).pipe(Effect.provide(Layer.fresh(SimCluster(recorded.face, { callMs: 5000 })))))

const valueOf = <A, E>(exit: Exit.Exit<A, E>): A => {
  if (Exit.isSuccess(exit)) return exit.value
  throw new Error(`expected success, got ${String(exit.cause)}`)
}

const failureOf = <A, E>(exit: Exit.Exit<A, E>): E => {
  if (Exit.isSuccess(exit)) throw new Error(`expected a failure, got ${JSON.stringify(exit.value)}`)
  const failure = exit.cause.reasons.find((r) => r._tag === "Fail")
  if (failure === undefined || failure._tag !== "Fail") throw new Error(`expected a typed failure, got ${String(exit.cause)}`)
  return failure.error
}

describe("trainJobPods through the simulator", () => {
  it("finds the TrainJob's pods by its JobSet's label in its namespace, by node, with their containers", async () => {
    const recorded = store(
      simOf(),
      pod("tj-a-node-1-0-x", { jobIndex: 1, containers: ["node", "sidecar"] }),
      pod("tj-a-node-0-0-y", { jobIndex: 0 }),
      pod("tj-b-node-0-0-z", { jobSet: "tj-b", jobIndex: 0 }),
      pod("tj-a-node-0-0-w", { namespace: "other", jobIndex: 0 })
    )
    recorded.sim.system.create("namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "other" } })
    expect(valueOf(await throughSim(recorded))).toEqual([
      { name: "tj-a-node-0-0-y", node: 0, containers: ["node"] },
      { name: "tj-a-node-1-0-x", node: 1, containers: ["node", "sidecar"] }
    ])
    const lists = recorded.calls.filter((c) => c.request.verb === "list")
    expect(lists.map((c) => [c.request.resource, c.request.namespace, c.request.labelSelector])).toEqual([["pods", namespace, `${jobSetLabel}=tj-a`]])
    expect(recorded.calls.filter((c) => c.request.verb !== "list")).toEqual([])
  })

  it("finds nothing for a TrainJob without pods", async () => {
    expect(valueOf(await throughSim(store(simOf(), pod("tj-b-node-0-0-z", { jobSet: "tj-b" }))))).toEqual([])
  })

  it("numbers an indexed Job's pods by completion index plus the Job's index", async () => {
    const recorded = store(
      simOf(),
      pod("p-3", { jobIndex: 2, completion: 1 }),
      pod("p-1", { completion: 1 }),
      pod("p-0", { jobIndex: 0, completion: 0 }),
      pod("p-5", { jobIndex: 5 })
    )
    expect(valueOf(await throughSim(recorded)).map((p) => [p.name, p.node])).toEqual([
      ["p-0", 0],
      ["p-1", 1],
      ["p-3", 3],
      ["p-5", 5]
    ])
  })

  it("keeps the newest pod of a node that was replaced", async () => {
    const recorded = store(simOf(), pod("tj-a-node-0-0-old", { jobIndex: 0 }), pod("tj-a-node-1-0-one", { jobIndex: 1 }))
    recorded.sim.advanceTo(recorded.sim.now() + 5000)
    store(recorded, pod("tj-a-node-0-0-new", { jobIndex: 0 }))
    expect(valueOf(await throughSim(recorded)).map((p) => p.name)).toEqual(["tj-a-node-0-0-new", "tj-a-node-1-0-one"])
  })

  const faults: ReadonlyArray<readonly [string, FaultAction, ClusterErrorReason]> = [
    ["refused", { type: "refuse" }, "Unreachable"],
    ["answered 500", { type: "status", code: 500 }, "ServerError"],
    ["forbidden", { type: "status", code: 403 }, "Forbidden"],
    ["never answered", { type: "drop" }, "Unanswered"]
  ]
  for (const [label, action, reason] of faults) {
    it(`fails with the list call's ClusterError when it is ${label}`, async () => {
      const recorded = store(simOf({ faults: [{ verb: "list", resource: "pods", action }] }), pod("tj-a-node-0-0-y"))
      const error = failureOf(await throughSim(recorded))
      expect(error).toMatchObject({ _tag: "ClusterError", reason })
      expect(error.call).toContain("pods")
      expect(recorded.calls.map((c) => c.request.verb)).toEqual(["list"])
    })
  }

  it("reads the pods once the fault has passed: a failed list leaves nothing behind", async () => {
    const recorded = store(simOf({ faults: [{ verb: "list", resource: "pods", nth: 1, action: { type: "status", code: 503 } }] }), pod("tj-a-node-0-0-y"))
    expect(failureOf(await throughSim(recorded)).reason).toBe("ServerError")
    expect(valueOf(await throughSim(recorded)).map((p) => p.name)).toEqual(["tj-a-node-0-0-y"])
  })
})

/** A cluster whose list answers `items` (and records the selector); every other call dies. */
const listing = (items: ReadonlyArray<unknown>, selectors: Array<string> = []): Layer.Layer<Cluster> => {
  const unused = () => Effect.die(new Error("not a call trainJobPods makes"))
  const shape: ClusterShape = {
    get: unused,
    create: unused,
    mergePatch: unused,
    delete: unused,
    podLog: unused,
    now: Effect.succeed(0),
    list: (_kind, _namespace, selector) => Effect.sync(() => (selectors.push(selector), items as ReadonlyArray<KubeResource>))
  }
  return Layer.succeed(Cluster, shape)
}

const given = (items: ReadonlyArray<unknown>) => Effect.runPromise(trainJobPods(namespace, "tj-a").pipe(Effect.provide(listing(items))))

/** A listed pod with the given creation time (ms since the epoch, or none). */
const listed = (name: string | undefined, labels: Record<string, string>, created: number | undefined, containers: ReadonlyArray<unknown> = [{ name: "node" }]) => ({
  metadata: {
    ...(name === undefined ? {} : { name }),
    labels,
    ...(created === undefined ? {} : { creationTimestamp: new Date(created).toISOString() })
  },
  spec: { containers }
})

describe("trainJobPods' rules", () => {
  it("lists by the JobSet's name label", async () => {
    const selectors: Array<string> = []
    await Effect.runPromise(trainJobPods(namespace, "dj-01j").pipe(Effect.provide(listing([], selectors))))
    expect(selectors).toEqual(["jobset.sigs.k8s.io/jobset-name=dj-01j"])
  })

  it("takes a pod without index labels as node 0", async () => {
    expect(await given([listed("p", {}, undefined)])).toEqual([{ name: "p", node: 0, containers: ["node"] }])
  })

  it("keeps the newer of two pods of a node in either order, the later listed of two equally old, and a stamped one over one without", async () => {
    const older = listed("older", {}, Date.UTC(2026, 0, 1, 10))
    const newer = listed("newer", {}, Date.UTC(2026, 0, 1, 11))
    expect((await given([older, newer])).map((p) => p.name)).toEqual(["newer"])
    expect((await given([newer, older])).map((p) => p.name)).toEqual(["newer"])
    const first = listed("first", {}, Date.UTC(2026, 0, 1, 10))
    const second = listed("second", {}, Date.UTC(2026, 0, 1, 10))
    expect((await given([first, second])).map((p) => p.name)).toEqual(["second"])
    expect((await given([older, listed("unstamped", {}, undefined)])).map((p) => p.name)).toEqual(["older"])
    expect((await given([listed("unstamped", {}, undefined), older])).map((p) => p.name)).toEqual(["older"])
  })

  it("skips a pod without a name or without a named container, and containers without a name", async () => {
    expect(
      await given([
        listed(undefined, { [jobIndexLabel]: "0" }, undefined),
        listed("no-containers", { [jobIndexLabel]: "1" }, undefined, []),
        listed("unnamed-containers", { [jobIndexLabel]: "2" }, undefined, [{ image: "x" }, "node"]),
        listed("kept", { [jobIndexLabel]: "3" }, undefined, [{ image: "x" }, { name: "trainer" }])
      ])
    ).toEqual([{ name: "kept", node: 3, containers: ["trainer"] }])
    expect(await given([{ metadata: { name: "no-spec", labels: {} } }])).toEqual([])
  })

  interface Made {
    readonly name: string
    readonly jobIndex?: number
    readonly completion?: number
    readonly created: number
  }
  const made = fc.record(
    {
      name: fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/),
      jobIndex: fc.nat(3),
      completion: fc.nat(3),
      created: fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2026, 0, 2) })
    },
    { requiredKeys: ["name", "created"] }
  )
  const nodeOf = (m: Made): number => (m.jobIndex ?? 0) + (m.completion ?? 0)
  const labelsOf = (m: Made): Record<string, string> => ({
    ...(m.jobIndex === undefined ? {} : { [jobIndexLabel]: String(m.jobIndex) }),
    ...(m.completion === undefined ? {} : { [completionLabel]: String(m.completion) })
  })

  prop.prop([fc.array(made, { maxLength: 12 })])("gives one pod per node, in node order, each the newest listed for its node", async (pods) => {
    const found = await given(pods.map((m) => listed(m.name, labelsOf(m), m.created)))
    const nodes = [...new Set(pods.map(nodeOf))].sort((a, b) => a - b)
    expect(found.map((p) => p.node)).toEqual(nodes)
    for (const p of found) {
      const ofNode = pods.filter((m) => nodeOf(m) === p.node)
      const newest = Math.max(...ofNode.map((m) => m.created))
      // the later listed of equally old pods
      expect(p.name).toBe(ofNode.filter((m) => m.created === newest).at(-1)?.name)
      expect(p.containers).toEqual(["node"])
    }
  })
})
