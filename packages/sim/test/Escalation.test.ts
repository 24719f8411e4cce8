import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import type { ApiRequest, KubeObject } from "../src/Api.ts"
import { compactString, escalationProblem, missingRules } from "../src/apiserver/rbac/Escalation.ts"
import { type PolicyRule, policyRuleOf } from "../src/apiserver/rbac/RbacRules.ts"
import { bareSimulator, call } from "./SimFixture.ts"

const rule = (r: Partial<PolicyRule>): PolicyRule => policyRuleOf(r)
const word = fc.constantFrom("get", "list", "create", "delete", "pods", "configmaps", "", "batch", "a", "b")
const ruleArb = fc.record({ verbs: fc.array(word, { minLength: 1, maxLength: 3 }), apiGroups: fc.array(word, { minLength: 1, maxLength: 2 }), resources: fc.array(word, { minLength: 1, maxLength: 3 }) }).map(rule)

describe("what a user holds covers", () => {
  test.prop([fc.array(ruleArb, { maxLength: 4 })])("a user's own rules, and any part of them", (rules) => {
    expect(missingRules(rules, rules)).toEqual([])
    expect(missingRules([rule({ verbs: ["*"], apiGroups: ["*"], resources: ["*"] })], rules)).toEqual([])
  })

  test.prop([ruleArb])("nothing, when nothing is held", (r) => {
    expect(missingRules([], [r]).length).toBeGreaterThan(0)
  })

  it("names exactly the missing permissions, verbs merged, sorted", () => {
    const held = [rule({ verbs: ["get", "list"], apiGroups: [""], resources: ["pods", "configmaps/*"] }), rule({ verbs: ["get"], nonResourceURLs: ["/healthz/*"] })]
    const wanted = [
      rule({ verbs: ["get", "delete", "list"], apiGroups: [""], resources: ["pods", "configmaps/status"] }),
      rule({ verbs: ["get"], apiGroups: [""], resources: ["secrets"], resourceNames: ["s"] }),
      rule({ verbs: ["get"], nonResourceURLs: ["/healthz/ready", "/metrics"] })
    ]
    expect(missingRules(held, wanted).map(compactString)).toEqual([
      '{APIGroups:[""], Resources:["configmaps/status"], Verbs:["delete"]}',
      '{APIGroups:[""], Resources:["pods"], Verbs:["delete"]}',
      '{APIGroups:[""], Resources:["secrets"], ResourceNames:["s"], Verbs:["get"]}',
      '{NonResourceURLs:["/metrics"], Verbs:["get"]}'
    ])
    // A rule held for some names covers those names only, never the whole collection.
    expect(missingRules([rule({ verbs: ["get"], apiGroups: [""], resources: ["secrets"], resourceNames: ["s"] })], [rule({ verbs: ["get"], apiGroups: [""], resources: ["secrets"] })]).length).toBe(1)
    // "a/*" covers every subresource of a, "*/b" the subresource b of every resource; neither covers a itself.
    const subresources = [rule({ verbs: ["get"], apiGroups: [""], resources: ["pods/*", "*/status"] })]
    expect(missingRules(subresources, [rule({ verbs: ["get"], apiGroups: [""], resources: ["pods/log", "jobs/status", "pods", "jobs/scale"] })]).map(compactString)).toEqual([
      '{APIGroups:[""], Resources:["jobs/scale"], Verbs:["get"]}',
      '{APIGroups:[""], Resources:["pods"], Verbs:["get"]}'
    ])
    // A URL held exactly covers itself only; names held cover those names.
    expect(missingRules([rule({ verbs: ["get"], nonResourceURLs: ["/metrics"] })], [rule({ verbs: ["get"], nonResourceURLs: ["/metrics", "/metricsz"] })]).map(compactString)).toEqual([
      '{NonResourceURLs:["/metricsz"], Verbs:["get"]}'
    ])
    const named = [rule({ verbs: ["get"], apiGroups: [""], resources: ["secrets"], resourceNames: ["s", "t"] })]
    expect(missingRules(named, [rule({ verbs: ["get"], apiGroups: [""], resources: ["secrets"], resourceNames: ["s", "u"] })]).map(compactString)).toEqual([
      '{APIGroups:[""], Resources:["secrets"], ResourceNames:["u"], Verbs:["get"]}'
    ])
    // A permission asked twice is named once.
    expect(missingRules([], [rule({ verbs: ["get", "get"], apiGroups: [""], resources: ["pods"] })]).map(compactString)).toEqual(['{APIGroups:[""], Resources:["pods"], Verbs:["get"]}'])
    // "*" as a verb or group is covered only by "*".
    expect(missingRules([rule({ verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] })], [rule({ verbs: ["*"], apiGroups: [""], resources: ["pods"] })]).map(compactString)).toEqual([
      '{APIGroups:[""], Resources:["pods"], Verbs:["*"]}'
    ])
    expect(escalationProblem({ name: "alice", groups: ["g"] }, [], [rule({ verbs: ["get"], apiGroups: [""], resources: ["pods"] })])).toBe(
      'user "alice" (groups=["g"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["pods"], Verbs:["get"]}'
    )
  })
})

import { clusterRole, clusterRoleBinding, rbac, subject } from "./RbacObjects.ts"

const users = { "alice-token": { name: "alice" } }
const roleBody = (name: string, rules: ReadonlyArray<object>, extra: Record<string, unknown> = {}): KubeObject => ({ apiVersion: `${rbac}/v1`, kind: "Role", metadata: { name }, rules, ...extra })
const bindingBody = (name: string, kind: string, roleName: string): KubeObject => ({
  apiVersion: `${rbac}/v1`,
  kind: "RoleBinding",
  metadata: { name },
  roleRef: { apiGroup: rbac, kind, name: roleName },
  subjects: [{ kind: "User", name: "bob", apiGroup: rbac }]
})
const write = (resource: string, body: KubeObject, namespace: string | undefined = "ml"): ApiRequest => ({
  verb: "create",
  group: rbac,
  version: "v1",
  resource,
  ...(namespace === undefined ? {} : { namespace }),
  body,
  token: "alice-token"
})

const world = (extraRules: ReadonlyArray<object> = []) => {
  const sim = bareSimulator({ rbac: { users } })
  sim.system.create("namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "ml" } })
  sim.system.create("roles", {
    ...roleBody("rbac-writer", [{ verbs: ["create", "update", "patch"], apiGroups: [rbac], resources: ["roles", "rolebindings"] }, { verbs: ["get", "list"], apiGroups: [""], resources: ["configmaps"] }, ...extraRules]),
    metadata: { name: "rbac-writer", namespace: "ml" }
  })
  sim.system.create("rolebindings", { ...bindingBody("alice", "Role", "rbac-writer"), metadata: { name: "alice", namespace: "ml" }, subjects: [{ kind: "User", name: "alice", apiGroup: rbac }] })
  return sim
}

describe("the escalation check", () => {
  it("lets a user write a Role with rules it holds, and refuses one with more, naming them", () => {
    const sim = world()
    expect(call(sim, write("roles", roleBody("reader", [{ verbs: ["get"], apiGroups: [""], resources: ["configmaps"] }]))).code).toBe(201)
    const more = call(sim, write("roles", roleBody("deleter", [{ verbs: ["get", "delete"], apiGroups: [""], resources: ["configmaps"] }])))
    expect([more.code, (more.body as { message: string }).message]).toEqual([
      403,
      'roles.rbac.authorization.k8s.io "deleter" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{APIGroups:[""], Resources:["configmaps"], Verbs:["delete"]}'
    ])
    expect(sim.system.get("roles", "ml", "deleter")).toBeUndefined()
    // An update that adds a rule is checked as a create is.
    const update = call(sim, { ...write("roles", { ...roleBody("reader", [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }]), metadata: { name: "reader", namespace: "ml", resourceVersion: (sim.system.get("roles", "ml", "reader")?.["metadata"] as { resourceVersion: string }).resourceVersion } }), verb: "update", name: "reader" })
    expect(update.code).toBe(403)
    expect(sim.system.get("roles", "ml", "reader")).toMatchObject({ rules: [{ verbs: ["get"] }] })
  })

  it("lets a user with `escalate` write any Role", () => {
    const sim = world([{ verbs: ["escalate"], apiGroups: [rbac], resources: ["roles"] }])
    expect(call(sim, write("roles", roleBody("deleter", [{ verbs: ["delete"], apiGroups: [""], resources: ["configmaps"] }]))).code).toBe(201)
  })

  it("lets a user bind a role whose rules it holds, or one it may `bind`, and nothing else", () => {
    const sim = world()
    sim.system.create("roles", { ...roleBody("reader", [{ verbs: ["list"], apiGroups: [""], resources: ["configmaps"] }]), metadata: { name: "reader", namespace: "ml" } })
    expect(call(sim, write("rolebindings", bindingBody("bob-reads", "Role", "reader"))).code).toBe(201)
    const admin = call(sim, write("rolebindings", bindingBody("bob-admin", "ClusterRole", "cluster-admin")))
    expect([admin.code, (admin.body as { message: string }).message.split("\n")[0]]).toEqual([
      403,
      'rolebindings.rbac.authorization.k8s.io "bob-admin" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:'
    ])
    expect(call(sim, write("rolebindings", bindingBody("bob-nothing", "Role", "missing"))).code).toBe(404)
    const binder = world([{ verbs: ["bind"], apiGroups: [rbac], resources: ["clusterroles"], resourceNames: ["cluster-admin"] }])
    expect(call(binder, write("rolebindings", bindingBody("bob-admin", "ClusterRole", "cluster-admin"))).code).toBe(201)
  })

  it("leaves the default user (system:masters) unchecked, and aggregationRule to it", () => {
    const sim = world([{ verbs: ["create"], apiGroups: [rbac], resources: ["clusterroles"] }, { verbs: ["get"], apiGroups: [""], resources: ["pods"] }])
    const { token: _token, ...asAdmin } = write("clusterroles", { apiVersion: `${rbac}/v1`, kind: "ClusterRole", metadata: { name: "anything" }, rules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }] }, undefined)
    expect(call(sim, asAdmin).code).toBe(201)
    const aggregated = { apiVersion: `${rbac}/v1`, kind: "ClusterRole", metadata: { name: "agg" }, aggregationRule: { clusterRoleSelectors: [{ matchLabels: { a: "b" } }] }, rules: [] }
    // alice may not create ClusterRoles at all (her Role is namespaced): RBAC refuses before the escalation check.
    expect((call(sim, write("clusterroles", aggregated, undefined)).body as { message: string }).message).toContain('cannot create resource "clusterroles"')
    sim.system.create("clusterrolebindings", clusterRoleBinding("alice-creates", "creator", [subject("User", "alice")]))
    sim.system.create("clusterroles", clusterRole("creator", [{ verbs: ["create"], apiGroups: [rbac], resources: ["clusterroles"] }]))
    const refused = call(sim, write("clusterroles", aggregated, undefined))
    expect([refused.code, (refused.body as { message: string }).message]).toEqual([403, 'clusterroles.rbac.authorization.k8s.io "agg" is forbidden: must have cluster-admin privileges to use the aggregationRule'])
    expect(call(sim, write("clusterroles", { ...aggregated, aggregationRule: undefined, metadata: { name: "plain" }, rules: [{ verbs: ["create"], apiGroups: [rbac], resources: ["clusterroles"] }] }, undefined)).code).toBe(201)
  })
})
