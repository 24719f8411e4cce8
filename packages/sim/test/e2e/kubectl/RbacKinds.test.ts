// The RBAC kinds and ServiceAccount through the real kubectl: its typed commands (protobuf bodies),
// manifests (JSON), the columns `kubectl get` prints, and the refusals the real server gives.
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { builtinKinds, rbacKinds } from "../../../src/kinds/Builtin.ts"
import { type Served, serve } from "../../HttpFixture.ts"
import { kubectl, ok } from "./KubectlFixture.ts"

const header = (out: string): ReadonlyArray<string> => out.split("\n")[0]?.trim().split(/\s{2,}/) ?? []
const row = (out: string, n = 1): ReadonlyArray<string> => out.split("\n")[n]?.trim().split(/\s{2,}/) ?? []

describe("RBAC kinds through kubectl", () => {
  let served: Served
  beforeAll(async () => {
    served = await serve({ kinds: [...builtinKinds, ...rbacKinds] })
  })
  afterAll(() => served.close())

  it("creates roles, bindings and service accounts with kubectl create and lists them as kubectl shows them", async () => {
    expect(ok(await kubectl(served, "create", "serviceaccount", "trainer"))).toBe("serviceaccount/trainer created\n")
    expect(ok(await kubectl(served, "create", "role", "pod-reader", "--verb=get,list", "--resource=pods,pods/log"))).toBe("role.rbac.authorization.k8s.io/pod-reader created\n")
    expect(served.simulator.system.get("roles", "default", "pod-reader")).toMatchObject({ rules: [{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods", "pods/log"] }] })
    expect(ok(await kubectl(served, "create", "clusterrole", "system:metrics", "--verb=get", "--non-resource-url=/metrics/*"))).toBe("clusterrole.rbac.authorization.k8s.io/system:metrics created\n")
    expect(ok(await kubectl(served, "create", "rolebinding", "read-pods", "--role=pod-reader", "--user=alice", "--serviceaccount=default:trainer"))).toBe(
      "rolebinding.rbac.authorization.k8s.io/read-pods created\n"
    )
    expect(served.simulator.system.get("rolebindings", "default", "read-pods")).toMatchObject({
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "pod-reader" },
      subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "alice" }, { kind: "ServiceAccount", name: "trainer", namespace: "default" }]
    })
    expect(ok(await kubectl(served, "create", "clusterrolebinding", "metrics", "--clusterrole=system:metrics", "--group=ops"))).toBe(
      "clusterrolebinding.rbac.authorization.k8s.io/metrics created\n"
    )

    const roles = ok(await kubectl(served, "get", "roles"))
    expect(header(roles)).toEqual(["NAME", "CREATED AT"])
    expect(row(roles)[0]).toBe("pod-reader")
    expect(row(roles)[1]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
    const bindings = ok(await kubectl(served, "get", "rolebindings", "-o", "wide"))
    expect(header(bindings)).toEqual(["NAME", "ROLE", "AGE", "USERS", "GROUPS", "SERVICEACCOUNTS"])
    // GROUPS is empty, so only the column positions tell the cells apart.
    const line = bindings.split("\n")[1] ?? ""
    const at = (name: string) => (bindings.split("\n")[0] ?? "").indexOf(name)
    expect([line.slice(0, at("ROLE")).trim(), line.slice(at("ROLE"), at("AGE")).trim(), line.slice(at("USERS"), at("GROUPS")).trim(), line.slice(at("GROUPS"), at("SERVICEACCOUNTS")).trim(), line.slice(at("SERVICEACCOUNTS")).trim()]).toEqual([
      "read-pods",
      "Role/pod-reader",
      "alice",
      "",
      "default/trainer"
    ])
    expect(header(ok(await kubectl(served, "get", "clusterrolebindings")))).toEqual(["NAME", "ROLE", "AGE"])
    expect(header(ok(await kubectl(served, "get", "sa")))).toEqual(["NAME", "SECRETS", "AGE"])
    expect(row(ok(await kubectl(served, "get", "sa", "trainer"))).slice(0, 2)).toEqual(["trainer", "0"])
  })

  it("explains the RBAC fields", async () => {
    // kubectl wraps the text: compare it with its whitespace collapsed.
    const explained = async (path: string) => ok(await kubectl(served, "explain", path)).replace(/\s+/g, " ")
    expect(await explained("clusterrole.aggregationRule")).toContain("the rules of every ClusterRole a selector matches")
    expect(await explained("rolebinding.roleRef")).toContain("it cannot change once set")
  })

  it("refuses what the real server refuses", async () => {
    const manifest = join(served.dir, "bad-role.yaml")
    writeFileSync(
      manifest,
      "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: bad\nrules:\n- verbs: [get]\n  nonResourceURLs: [/healthz]\n- apiGroups: ['']\n  resources: [pods]\n"
    )
    const bad = await kubectl(served, "apply", "-f", manifest)
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toContain("rules[0].nonResourceURLs: Invalid value")
    expect(bad.stderr).toContain("namespaced rules cannot apply to non-resource URLs")
    expect(bad.stderr).toContain("rules[1].verbs: Required value: verbs must contain at least one value")
    expect(served.simulator.system.get("roles", "default", "bad")).toBeUndefined()

    const typo = join(served.dir, "typo.yaml")
    writeFileSync(typo, "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: typo\nrules:\n- verbs: [get]\n  apiGroup: ['']\n  resources: [pods]\n")
    const strict = await kubectl(served, "apply", "-f", typo)
    expect(strict.code).not.toBe(0)
    expect(strict.stderr).toContain('unknown field "rules[0].apiGroup"')

    expect(ok(await kubectl(served, "create", "rolebinding", "fixed", "--clusterrole=view", "--user=bob"))).toBe("rolebinding.rbac.authorization.k8s.io/fixed created\n")
    const moved = await kubectl(served, "patch", "rolebinding", "fixed", "--type=merge", "-p", '{"roleRef":{"name":"edit"}}')
    expect(moved.code).not.toBe(0)
    expect(moved.stderr).toContain("cannot change roleRef")
  })
})
