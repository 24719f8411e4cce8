import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import type { KubeObject } from "../src/Api.ts"
import { type PolicyRule, type RbacObjects, type RequestAttributes, policyRuleOf, rbacDecision, ruleAllows, rulesFor, serviceAccountGroups, serviceAccountUser } from "../src/apiserver/rbac/RbacRules.ts"

const rule = (r: Partial<PolicyRule>): PolicyRule => policyRuleOf(r)
const res = (verb: string, resource: string, extra: Partial<Extract<RequestAttributes, { kind: "resource" }>> = {}): RequestAttributes => ({ kind: "resource", verb, group: "", resource, ...extra })
const word = fc.stringMatching(/^[a-z]{1,8}$/)

describe("one rule", () => {
  test.prop([word, word, word])("'*' matches every verb, group and resource", (verb, group, resource) => {
    expect(ruleAllows(rule({ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }), res(verb, resource, { group }))).toBe(true)
  })

  test.prop([word, word, word])("a rule matches exactly the verb, group and resource it names", (verb, group, resource) => {
    const r = rule({ verbs: [verb], apiGroups: [group], resources: [resource] })
    expect(ruleAllows(r, res(verb, resource, { group }))).toBe(true)
    expect(ruleAllows(r, res(`${verb}x`, resource, { group }))).toBe(false)
    expect(ruleAllows(r, res(verb, `${resource}x`, { group }))).toBe(false)
    expect(ruleAllows(r, res(verb, resource, { group: `${group}x` }))).toBe(false)
  })

  it("names subresources as resource/subresource, '*/sub' matching the subresource of any resource", () => {
    const log = rule({ verbs: ["get"], apiGroups: [""], resources: ["pods/log"] })
    expect(ruleAllows(log, res("get", "pods", { subresource: "log", name: "p" }))).toBe(true)
    expect(ruleAllows(log, res("get", "pods", { name: "p" }))).toBe(false)
    expect(ruleAllows(rule({ verbs: ["get"], apiGroups: [""], resources: ["pods"] }), res("get", "pods", { subresource: "log" }))).toBe(false)
    expect(ruleAllows(rule({ verbs: ["get"], apiGroups: [""], resources: ["*/status"] }), res("get", "jobs", { subresource: "status" }))).toBe(true)
    expect(ruleAllows(rule({ verbs: ["get"], apiGroups: [""], resources: ["*/status"] }), res("get", "jobs"))).toBe(false)
  })

  it("with resourceNames, covers only requests naming one of them (never list, watch or create of the collection)", () => {
    const named = rule({ verbs: ["get", "list", "watch", "create", "update"], apiGroups: [""], resources: ["configmaps"], resourceNames: ["settings"] })
    expect(ruleAllows(named, res("get", "configmaps", { name: "settings" }))).toBe(true)
    expect(ruleAllows(named, res("update", "configmaps", { name: "settings" }))).toBe(true)
    expect(ruleAllows(named, res("get", "configmaps", { name: "other" }))).toBe(false)
    for (const verb of ["list", "watch", "create"]) expect(ruleAllows(named, res(verb, "configmaps"))).toBe(false)
    // A list narrowed to one name by a field selector names it, as kube-apiserver's request info does.
    expect(ruleAllows(named, res("list", "configmaps", { name: "settings" }))).toBe(true)
  })

  it("matches non-resource URLs exactly or by a trailing '*', and never resources", () => {
    const urls = rule({ verbs: ["get"], nonResourceURLs: ["/healthz", "/metrics/*"] })
    const path = (p: string, verb = "get"): RequestAttributes => ({ kind: "nonResource", verb, path: p })
    expect([path("/healthz"), path("/metrics/cpu"), path("/metrics/"), path("/healthz/ready"), path("/metrics"), path("/healthz", "post")].map((p) => ruleAllows(urls, p))).toEqual([
      true,
      true,
      true,
      false,
      false,
      false
    ])
    expect(ruleAllows(rule({ verbs: ["*"], nonResourceURLs: ["*"] }), path("/anything"))).toBe(true)
    expect(ruleAllows(urls, res("get", "pods"))).toBe(false)
    expect(ruleAllows(rule({ verbs: ["get"], apiGroups: ["*"], resources: ["*"] }), path("/healthz"))).toBe(false)
  })
})

const meta = (name: string, namespace?: string) => ({ name, ...(namespace === undefined ? {} : { namespace }) })
const role = (name: string, namespace: string, rules: ReadonlyArray<object>): KubeObject => ({ kind: "Role", metadata: meta(name, namespace), rules })
const clusterRole = (name: string, rules: ReadonlyArray<object>): KubeObject => ({ kind: "ClusterRole", metadata: meta(name), rules })
const binding = (kind: "RoleBinding" | "ClusterRoleBinding", name: string, namespace: string | undefined, roleKind: string, roleName: string, subjects: ReadonlyArray<object>): KubeObject => ({
  kind,
  metadata: meta(name, namespace),
  roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: roleKind, name: roleName },
  subjects
})
const objects = (all: ReadonlyArray<KubeObject>): RbacObjects => {
  const named = (kind: string, namespace: string | undefined, name: string) =>
    all.find((o) => o["kind"] === kind && (o["metadata"] as { name: string }).name === name && (o["metadata"] as { namespace?: string }).namespace === namespace)
  return {
    clusterRoleBindings: () => all.filter((o) => o["kind"] === "ClusterRoleBinding"),
    roleBindings: (ns) => all.filter((o) => o["kind"] === "RoleBinding" && (o["metadata"] as { namespace?: string }).namespace === ns),
    role: (ns, name) => named("Role", ns, name),
    clusterRole: (name) => named("ClusterRole", undefined, name)
  }
}

const readPods = [{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] }]
const alice = { name: "alice", groups: ["system:authenticated"] }
const sa = { name: serviceAccountUser("ml", "trainer"), groups: [...serviceAccountGroups("ml"), "system:authenticated"] }

describe("bindings", () => {
  const world = objects([
    role("pod-reader", "ml", readPods),
    role("pod-reader", "other", [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }]),
    clusterRole("secret-reader", [{ verbs: ["get"], apiGroups: [""], resources: ["secrets"] }]),
    clusterRole("node-reader", [{ verbs: ["list"], apiGroups: [""], resources: ["nodes"] }]),
    binding("RoleBinding", "alice-pods", "ml", "Role", "pod-reader", [{ kind: "User", name: "alice" }]),
    binding("RoleBinding", "sa-secrets", "ml", "ClusterRole", "secret-reader", [{ kind: "ServiceAccount", name: "trainer" }]),
    binding("ClusterRoleBinding", "nodes", undefined, "ClusterRole", "node-reader", [{ kind: "Group", name: "system:serviceaccounts:ml" }]),
    // A Role named from a ClusterRoleBinding grants nothing.
    binding("ClusterRoleBinding", "broken", undefined, "Role", "pod-reader", [{ kind: "User", name: "alice" }])
  ])

  it("grants a Role in its binding's namespace only", () => {
    expect(rbacDecision(world, alice, res("list", "pods", { namespace: "ml" }))).toEqual({ allowed: true, reason: 'RBAC: allowed by RoleBinding "alice-pods/ml" of Role "pod-reader" to User "alice"' })
    expect(rbacDecision(world, alice, res("list", "pods", { namespace: "other" })).allowed).toBe(false)
    expect(rbacDecision(world, alice, res("list", "pods")).allowed).toBe(false)
    expect(rbacDecision(world, alice, res("delete", "pods", { namespace: "ml", name: "p" })).allowed).toBe(false)
  })

  it("grants a ClusterRole's rules through a RoleBinding in that namespace only, to the binding's ServiceAccount", () => {
    expect(rbacDecision(world, sa, res("get", "secrets", { namespace: "ml", name: "s" })).reason).toBe('RBAC: allowed by RoleBinding "sa-secrets/ml" of ClusterRole "secret-reader" to ServiceAccount "trainer/ml"')
    expect(rbacDecision(world, sa, res("get", "secrets", { namespace: "default", name: "s" })).allowed).toBe(false)
    const other = { name: serviceAccountUser("default", "trainer"), groups: serviceAccountGroups("default") }
    expect(rbacDecision(world, other, res("get", "secrets", { namespace: "ml", name: "s" })).allowed).toBe(false)
  })

  it("grants a ClusterRoleBinding everywhere, to a group", () => {
    expect(rbacDecision(world, sa, res("list", "nodes")).reason).toBe('RBAC: allowed by ClusterRoleBinding "nodes" of ClusterRole "node-reader" to Group "system:serviceaccounts:ml"')
    expect(rbacDecision(world, sa, res("list", "nodes", { namespace: "x" })).allowed).toBe(true)
    expect(rbacDecision(world, alice, res("list", "nodes")).allowed).toBe(false)
  })

  it("takes a ServiceAccount subject's own namespace over the binding's, and none from a ClusterRoleBinding", () => {
    const accounts = objects([
      clusterRole("pod-reader", readPods),
      binding("RoleBinding", "cross", "ml", "ClusterRole", "pod-reader", [{ kind: "ServiceAccount", name: "robot", namespace: "qa" }]),
      binding("ClusterRoleBinding", "nameless", undefined, "ClusterRole", "pod-reader", [{ kind: "ServiceAccount", name: "robot" }])
    ])
    const robot = (namespace: string) => ({ name: serviceAccountUser(namespace, "robot"), groups: serviceAccountGroups(namespace) })
    expect(rbacDecision(accounts, robot("qa"), res("get", "pods", { namespace: "ml" })).reason).toBe('RBAC: allowed by RoleBinding "cross/ml" of ClusterRole "pod-reader" to ServiceAccount "robot/qa"')
    expect(rbacDecision(accounts, robot("ml"), res("get", "pods", { namespace: "ml" })).allowed).toBe(false)
    expect(rbacDecision(accounts, robot("qa"), res("get", "pods", { namespace: "qa" })).allowed).toBe(false)
    expect(serviceAccountGroups("qa")).toEqual(["system:serviceaccounts", "system:serviceaccounts:qa"])
  })

  it("lets system:masters do anything", () => {
    expect(rbacDecision(objects([]), { name: "root", groups: ["system:masters"] }, res("delete", "anything"))).toEqual({ allowed: true, reason: "" })
  })

  it("lists the rules granted, cluster-wide first", () => {
    expect(rulesFor(world, sa, "ml").map((s) => [s.binding.split(" ")[0], s.rules.length])).toEqual([["ClusterRoleBinding", 1], ["RoleBinding", 1]])
    expect(rulesFor(world, alice, undefined).map((s) => s.rules.length)).toEqual([0])
  })
})
