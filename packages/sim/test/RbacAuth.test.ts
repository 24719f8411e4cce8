import { describe, expect, it } from "vitest"
import type { ApiRequest, KubeObject } from "../src/Api.ts"
import { selectedName } from "../src/apiserver/rbac/RbacAuth.ts"
import { bareSimulator, call } from "./SimFixture.ts"
import { clusterRole, clusterRoleBinding, rbac, role, roleBinding, subject } from "./RbacObjects.ts"

const users = { "alice-token": { name: "alice" }, "ops-token": { name: "olga", groups: ["ops"] } }
const cm = (name: string): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name } })
const get = (resource: string, group: string, namespace: string | undefined, name: string | undefined, token?: string, extra: Partial<ApiRequest> = {}): ApiRequest => ({
  verb: name === undefined ? "list" : "get",
  group,
  version: "v1",
  resource,
  ...(namespace === undefined ? {} : { namespace }),
  ...(name === undefined ? {} : { name }),
  ...(token === undefined ? {} : { token }),
  ...extra
})

const seeded = () => {
  const sim = bareSimulator({ rbac: { users } })
  sim.system.create("namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "ml" } })
  sim.system.create("configmaps", { ...cm("settings"), metadata: { name: "settings", namespace: "ml" } })
  sim.system.create("roles", role("ml", "cm-reader", [{ verbs: ["get", "list"], apiGroups: [""], resources: ["configmaps"] }]))
  sim.system.create("rolebindings", roleBinding("ml", "alice-reads", "Role", "cm-reader", [subject("User", "alice")]))
  return sim
}

describe("a simulator with RBAC", () => {
  it("serves the RBAC kinds and starts with cluster-admin bound to system:masters", () => {
    const sim = bareSimulator({ rbac: {} })
    expect(sim.system.get("clusterroles", undefined, "cluster-admin")).toMatchObject({ rules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }, { verbs: ["*"], nonResourceURLs: ["*"] }] })
    expect(sim.system.get("clusterrolebindings", undefined, "cluster-admin")).toMatchObject({ subjects: [{ kind: "Group", name: "system:masters" }] })
  })

  it("lets a request without a token (the default user) do anything", () => {
    const sim = seeded()
    expect(call(sim, { verb: "create", group: "", version: "v1", resource: "configmaps", namespace: "default", body: cm("a") }).code).toBe(201)
    expect(call(sim, get("clusterroles", rbac, undefined, undefined)).code).toBe(200)
  })

  it("allows what a user's bindings grant and refuses the rest with kube-apiserver's 403", () => {
    const sim = seeded()
    expect(call(sim, get("configmaps", "", "ml", "settings", "alice-token")).code).toBe(200)
    expect(call(sim, get("configmaps", "", "ml", undefined, "alice-token")).code).toBe(200)
    const elsewhere = call(sim, get("configmaps", "", "default", undefined, "alice-token"))
    expect(elsewhere).toEqual({
      code: 403,
      body: {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: 'configmaps is forbidden: User "alice" cannot list resource "configmaps" in API group "" in the namespace "default"',
        reason: "Forbidden",
        details: { kind: "configmaps" },
        code: 403
      }
    })
    const write = call(sim, { verb: "delete", group: "", version: "v1", resource: "configmaps", namespace: "ml", name: "settings", token: "alice-token" })
    expect([write.code, (write.body as { message: string }).message]).toEqual([403, 'configmaps "settings" is forbidden: User "alice" cannot delete resource "configmaps" in API group "" in the namespace "ml"'])
    expect(sim.system.get("configmaps", "ml", "settings")).toBeDefined()
    const cluster = call(sim, get("clusterroles", rbac, undefined, undefined, "ops-token"))
    expect((cluster.body as { message: string }).message).toBe('clusterroles.rbac.authorization.k8s.io is forbidden: User "olga" cannot list resource "clusterroles" in API group "rbac.authorization.k8s.io" at the cluster scope')
  })

  it("answers 401 to a token it never issued", () => {
    expect(call(seeded(), get("configmaps", "", "ml", undefined, "forged")).code).toBe(401)
  })

  it("follows bindings as they change", () => {
    const sim = seeded()
    sim.system.create("clusterrolebindings", clusterRoleBinding("ops-admin", "cluster-admin", [subject("Group", "ops")]))
    expect(call(sim, get("clusterroles", rbac, undefined, undefined, "ops-token")).code).toBe(200)
    sim.system.delete("clusterrolebindings", undefined, "ops-admin")
    expect(call(sim, get("clusterroles", rbac, undefined, undefined, "ops-token")).code).toBe(403)
  })

  it("refuses a watch as it refuses a list", () => {
    const sim = seeded()
    expect(sim.watch(get("configmaps", "", "default", undefined, "alice-token", { verb: "watch" }), () => {}).outcome).toMatchObject({ response: { code: 403 } })
  })
})

describe("selectedName", () => {
  it("reads metadata.name=<name> from a field selector", () => {
    expect(["metadata.name=a", "x=1,metadata.name==b", " metadata.name = c ", "metadata.namespace=d", "", undefined].map(selectedName)).toEqual(["a", "b", "c", undefined, undefined, undefined])
  })
})

describe("impersonation", () => {
  const ssar = (resourceAttributes: Record<string, string>) => ({ apiVersion: "authorization.k8s.io/v1", kind: "SelfSubjectAccessReview", spec: { resourceAttributes } })
  const grantImpersonation = (sim: ReturnType<typeof seeded>, rules: ReadonlyArray<object>) => {
    sim.system.create("clusterroles", clusterRole("impersonator", rules))
    sim.system.create("clusterrolebindings", clusterRoleBinding("olga-impersonates", "impersonator", [subject("User", "olga")]))
  }

  it("refuses a caller without `impersonate` on that user with kube-apiserver's 403", () => {
    const sim = seeded()
    const refused = call(sim, get("configmaps", "", "ml", undefined, "ops-token", { impersonate: { user: "alice", groups: [] } }))
    expect([refused.code, (refused.body as { message: string }).message]).toEqual([403, 'users "alice" is forbidden: User "olga" cannot impersonate resource "users" in API group "" at the cluster scope'])
    const review = sim.selfReview("SelfSubjectAccessReview", "ops-token", ssar({ verb: "get", resource: "configmaps", namespace: "ml" }), { user: "alice", groups: [] })
    expect(review.code).toBe(403)
  })

  it("acts as the impersonated user once allowed, each group and service account checked too", () => {
    const sim = seeded()
    grantImpersonation(sim, [
      { verbs: ["impersonate"], apiGroups: [""], resources: ["users"], resourceNames: ["alice"] },
      { verbs: ["impersonate"], apiGroups: [""], resources: ["groups"], resourceNames: ["readers"] }
    ])
    expect(call(sim, get("configmaps", "", "ml", undefined, "ops-token", { impersonate: { user: "alice", groups: [] } })).code).toBe(200)
    expect(call(sim, get("configmaps", "", "default", undefined, "ops-token", { impersonate: { user: "alice", groups: [] } })).code).toBe(403)
    expect(call(sim, get("configmaps", "", "ml", undefined, "ops-token", { impersonate: { user: "alice", groups: ["readers"] } })).code).toBe(200)
    const group = call(sim, get("configmaps", "", "ml", undefined, "ops-token", { impersonate: { user: "alice", groups: ["admins"] } }))
    expect((group.body as { message: string }).message).toBe('groups "admins" is forbidden: User "olga" cannot impersonate resource "groups" in API group "" at the cluster scope')
    const account = call(sim, get("configmaps", "", "ml", undefined, "ops-token", { impersonate: { user: "system:serviceaccount:ml:robot", groups: [] } }))
    expect((account.body as { message: string }).message).toBe(
      'serviceaccounts "robot" is forbidden: User "olga" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "ml"'
    )
  })
})

describe("reviews from RBAC", () => {
  it("answers a SelfSubjectAccessReview with RBAC's decision and reason", () => {
    const sim = seeded()
    const body = (namespace: string) => ({ kind: "SelfSubjectAccessReview", spec: { resourceAttributes: { verb: "list", resource: "configmaps", namespace } } })
    expect(sim.selfReview("SelfSubjectAccessReview", "alice-token", body("ml"))).toMatchObject({
      code: 201,
      body: { status: { allowed: true, reason: 'RBAC: allowed by RoleBinding "alice-reads/ml" of Role "cm-reader" to User "alice"' } }
    })
    expect((sim.selfReview("SelfSubjectAccessReview", "alice-token", body("default")).body as { status: unknown }).status).toEqual({ allowed: false })
    expect(sim.selfReview("SelfSubjectAccessReview", "forged", body("ml")).code).toBe(401)
    expect(sim.selfReview("SelfSubjectAccessReview", "alice-token", { spec: {} }).code).toBe(422)
  })

  it("answers a SubjectAccessReview only to a caller allowed to create one", () => {
    const sim = seeded()
    const body = { spec: { user: "alice", resourceAttributes: { verb: "get", resource: "configmaps", namespace: "ml" } } }
    expect(sim.selfReview("SubjectAccessReview", undefined, body)).toMatchObject({ code: 201, body: { kind: "SubjectAccessReview", status: { allowed: true } } })
    const refused = sim.selfReview("SubjectAccessReview", "alice-token", body)
    expect([refused.code, (refused.body as { message: string }).message]).toEqual([
      403,
      'subjectaccessreviews.authorization.k8s.io is forbidden: User "alice" cannot create resource "subjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope'
    ])
    // Without RBAC there is no SubjectAccessReview to answer.
    expect(bareSimulator().selfReview("SubjectAccessReview", undefined, body).code).toBe(404)
  })

  it("lists a user's rules in a namespace with a SelfSubjectRulesReview", () => {
    const sim = seeded()
    expect((sim.selfReview("SelfSubjectRulesReview", "alice-token", { spec: { namespace: "ml" } }).body as { status: unknown }).status).toEqual({
      resourceRules: [{ verbs: ["get", "list"], apiGroups: [""], resources: ["configmaps"] }],
      nonResourceRules: [],
      incomplete: false
    })
    expect((sim.selfReview("SelfSubjectRulesReview", "alice-token", { spec: { namespace: "default" } }).body as { status: unknown }).status).toEqual({
      resourceRules: [],
      nonResourceRules: [],
      incomplete: false
    })
  })
})
