import { describe, expect, it } from "vitest"
import type { KubeObject } from "../src/Api.ts"
import { labelSelectorOf } from "../src/apiserver/lists/LabelSelector.ts"
import { aggregatedRules } from "../src/controllers/rbac/ClusterRoleAggregation.ts"
import { bareSimulator, call } from "./SimFixture.ts"

import { clusterRole as roleOf, clusterRoleBinding, subject } from "./RbacObjects.ts"

const clusterRole = (name: string, labels: Record<string, string>, rules: ReadonlyArray<object>, aggregationRule?: object): KubeObject => roleOf(name, rules, labels, aggregationRule)
const pods = { verbs: ["get"], apiGroups: [""], resources: ["pods"] }
const jobs = { verbs: ["list"], apiGroups: ["batch"], resources: ["jobs"] }

describe("labelSelectorOf", () => {
  it("reads matchLabels and matchExpressions, refusing an unknown operator", () => {
    expect(labelSelectorOf({ matchLabels: { a: "b" }, matchExpressions: [{ key: "c", operator: "NotIn", values: ["d"] }, { key: "e", operator: "Exists" }] })).toEqual([
      { op: "in", key: "a", values: ["b"] },
      { op: "notin", key: "c", values: ["d"] },
      { op: "exists", key: "e" }
    ])
    expect(labelSelectorOf({})).toEqual([])
    expect(labelSelectorOf({ matchExpressions: [{ key: "a", operator: "Near" }] })).toBeUndefined()
  })
})

describe("ClusterRole aggregation", () => {
  it("collects the rules of the matching ClusterRoles by name, each once, never its own", () => {
    const aggregate = clusterRole("agg", { x: "1" }, [], { clusterRoleSelectors: [{ matchLabels: { x: "1" } }, { matchLabels: { y: "1" } }] })
    const all = [aggregate, clusterRole("b", { y: "1" }, [jobs, pods]), clusterRole("a", { x: "1" }, [pods]), clusterRole("c", {}, [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }])]
    expect(aggregatedRules(aggregate, all)).toEqual([pods, jobs])
    expect(aggregatedRules(all[1] as KubeObject, all)).toBeUndefined()
  })

  it("writes the aggregated rules into the ClusterRole as the clock moves, and RBAC grants them", () => {
    const sim = bareSimulator({ rbac: { users: { t: { name: "alice" } } } })
    sim.system.create("clusterroles", clusterRole("monitoring", {}, [], { clusterRoleSelectors: [{ matchLabels: { "rbac.example.com/aggregate-to-monitoring": "true" } }] }))
    sim.system.create("clusterrolebindings", clusterRoleBinding("alice-monitors", "monitoring", [subject("User", "alice")]))
    sim.system.create("clusterroles", clusterRole("monitor-pods", { "rbac.example.com/aggregate-to-monitoring": "true" }, [pods]))
    const listPods = () => call(sim, { verb: "get", group: "", version: "v1", resource: "pods", namespace: "default", name: "p", token: "t" }).code
    expect(listPods()).toBe(403)
    sim.advance(1000)
    expect(sim.system.get("clusterroles", undefined, "monitoring")).toMatchObject({ rules: [pods] })
    expect(listPods()).toBe(404)
    // Unlabelling the source takes its rules away again.
    const source = sim.system.get("clusterroles", undefined, "monitor-pods") as KubeObject
    sim.system.update("clusterroles", { ...source, metadata: { ...(source["metadata"] as object), labels: {} } })
    sim.advance(1000)
    expect(sim.system.get("clusterroles", undefined, "monitoring")).toMatchObject({ rules: [] })
    expect(listPods()).toBe(403)
  })
})
