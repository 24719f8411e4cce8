import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { errorLine } from "../src/apiserver/validation/FieldErrors.ts"
import { bindingColumns, checkBinding, checkRole, defaultBinding, pathSegmentNameProblems, rbacGroup, roleColumns } from "../src/kinds/rbac/RbacShapes.ts"

const lines = (errors: ReadonlyArray<{ field: string; message: string; reason: string }>) => errors.map(errorLine)
const ref = (kind: string, name = "r", apiGroup: string = rbacGroup) => ({ apiGroup, kind, name })

describe("RBAC names", () => {
  test.prop([fc.string().filter((s) => !s.includes("/") && !s.includes("%") && s !== "." && s !== "..")])("anything but '.', '..', '/' and '%' names a role", (name) => {
    expect(pathSegmentNameProblems(name)).toEqual([])
  })

  it("names each problem", () => {
    expect(pathSegmentNameProblems("system:aggregate-to-view")).toEqual([])
    expect(pathSegmentNameProblems("..")).toEqual(["may not be '..'"])
    expect(pathSegmentNameProblems("a/b%c")).toEqual(["may not contain '/'", "may not contain '%'"])
  })
})

describe("policy rules", () => {
  it("refuses a rule without verbs, groups or resources, naming each", () => {
    expect(lines(checkRole(true)({ rules: [{ verbs: [], resources: ["pods"] }, { verbs: ["get"], apiGroups: [""], resources: ["pods"] }] }))).toEqual([
      "rules[0].verbs: Required value: verbs must contain at least one value",
      "rules[0].apiGroups: Required value: resource rules must supply at least one api group"
    ])
    expect(lines(checkRole(false)({ rules: [{ verbs: ["get"], apiGroups: [""] }] }))).toEqual(["rules[0].resources: Required value: resource rules must supply at least one resource"])
  })

  it("lets only a ClusterRole name non-resource URLs, and never with resources", () => {
    const urls = { verbs: ["get"], nonResourceURLs: ["/healthz", "/metrics/*"] }
    expect(checkRole(false)({ rules: [urls] })).toEqual([])
    expect(lines(checkRole(true)({ rules: [urls] }))).toEqual(["rules[0].nonResourceURLs: Invalid value: []interface {}{...}: namespaced rules cannot apply to non-resource URLs"])
    expect(lines(checkRole(false)({ rules: [{ ...urls, resources: ["pods"] }] }))).toEqual([
      "rules[0].nonResourceURLs: Invalid value: []interface {}{...}: rules cannot apply to both regular resources and non-resource URLs"
    ])
  })
})

describe("bindings", () => {
  it("takes a Role or ClusterRole in a RoleBinding, only a ClusterRole in a ClusterRoleBinding", () => {
    expect(checkBinding(true)({ roleRef: ref("Role") }, undefined)).toEqual([])
    expect(checkBinding(true)({ roleRef: ref("ClusterRole") }, undefined)).toEqual([])
    expect(lines(checkBinding(false)({ roleRef: ref("Role") }, undefined))).toEqual(['roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"'])
    expect(lines(checkBinding(true)({ roleRef: ref("Secret", "", "v1") }, undefined))).toEqual([
      'roleRef.apiGroup: Unsupported value: "v1": supported values: "rbac.authorization.k8s.io"',
      'roleRef.kind: Unsupported value: "Secret": supported values: "Role", "ClusterRole"',
      "roleRef.name: Required value"
    ])
  })

  it("checks each subject's kind, group, name and (cluster-wide) namespace", () => {
    const subjects = [
      { kind: "ServiceAccount", name: "Bad_Name", namespace: "ns" },
      { kind: "ServiceAccount", name: "ok" },
      { kind: "User", name: "alice", apiGroup: "" },
      { kind: "Group", name: "" , apiGroup: rbacGroup },
      { kind: "Robot", name: "r2" }
    ]
    expect(lines(checkBinding(false)({ roleRef: ref("ClusterRole"), subjects }, undefined))).toEqual([
      expect.stringMatching(/^subjects\[0\]\.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain/),
      "subjects[1].namespace: Required value",
      'subjects[2].apiGroup: Unsupported value: "": supported values: "rbac.authorization.k8s.io"',
      "subjects[3].name: Required value",
      'subjects[4].kind: Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"'
    ])
    // A RoleBinding's ServiceAccount subject may leave its namespace to the binding's.
    expect(checkBinding(true)({ roleRef: ref("Role"), subjects: [subjects[1]] }, undefined)).toEqual([])
  })

  it("never lets roleRef change", () => {
    const old = { roleRef: ref("Role", "a") }
    expect(checkBinding(true)({ roleRef: ref("Role", "a"), subjects: [] }, old)).toEqual([])
    expect(checkBinding(true)({ roleRef: ref("Role", "b") }, old).map((e) => [e.field, e.reason, e.message.endsWith("cannot change roleRef")])).toEqual([["roleRef", "FieldValueInvalid", true]])
  })

  it("defaults roleRef's and User/Group subjects' apiGroup, leaving ServiceAccounts' empty", () => {
    expect(defaultBinding({ roleRef: { kind: "Role", name: "r" }, subjects: [{ kind: "User", name: "a" }, { kind: "ServiceAccount", name: "s" }, { kind: "Group", name: "g", apiGroup: "x" }] })).toEqual({
      roleRef: { kind: "Role", name: "r", apiGroup: rbacGroup },
      subjects: [{ kind: "User", name: "a", apiGroup: rbacGroup }, { kind: "ServiceAccount", name: "s" }, { kind: "Group", name: "g", apiGroup: "x" }]
    })
    expect(defaultBinding({ metadata: {} })).toEqual({ metadata: {} })
  })
})

describe("columns", () => {
  it("prints roles' creation time and bindings' role and subjects", () => {
    const created = "2026-01-02T03:04:05Z"
    expect(roleColumns.map((c) => [c.name, c.cell({ metadata: { name: "r", creationTimestamp: created } }, 0)])).toEqual([["Name", "r"], ["Created At", created]])
    const binding = {
      metadata: { name: "b", creationTimestamp: created },
      roleRef: ref("ClusterRole", "view"),
      subjects: [{ kind: "User", name: "alice" }, { kind: "User", name: "bob" }, { kind: "ServiceAccount", name: "sa", namespace: "ns" }]
    }
    expect(bindingColumns.map((c) => [c.name, c.cell(binding, Date.parse(created) + 120_000), c.priority])).toEqual([
      ["Name", "b", undefined],
      ["Role", "ClusterRole/view", 0],
      ["Age", "2m", undefined],
      ["Users", "alice, bob", 1],
      ["Groups", "", 1],
      ["ServiceAccounts", "ns/sa", 1]
    ])
  })
})
