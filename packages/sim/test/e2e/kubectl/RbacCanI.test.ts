// `kubectl auth can-i` against a simulator that authorizes with RBAC: a table of requests and the
// bindings that allow or refuse them, written from the rules of Kubernetes' RBAC documentation
// (Role and ClusterRole, RoleBinding to either, ClusterRoleBinding, subjects of each kind, resource
// names, subresources, non-resource URLs, wildcards), each asked with `--as`/`--as-group`.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { KubeObject } from "../../../src/Api.ts"
import { type Served, serve } from "../../HttpFixture.ts"
import { kubectl, ok } from "./KubectlFixture.ts"
import { clusterRole, clusterRoleBinding, role, roleBinding, rule, subject } from "../../RbacObjects.ts"

const policy: ReadonlyArray<KubeObject> = [
  ...["development", "ml", "qa"].map((name) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } })),
  // The documentation's pod-reader, bound to jane in default.
  role("default", "pod-reader", [rule(["get", "watch", "list"], [""], ["pods"])]),
  roleBinding("default", "read-pods", "Role", "pod-reader", [subject("User", "jane")]),
  // A ClusterRole granted in one namespace by a RoleBinding (dave), and everywhere by a ClusterRoleBinding (group manager).
  clusterRole("cm-reader", [rule(["get", "watch", "list"], [""], ["configmaps"])]),
  roleBinding("development", "read-cms", "ClusterRole", "cm-reader", [subject("User", "dave")]),
  clusterRoleBinding("read-cms-global", "cm-reader", [subject("Group", "manager")]),
  // Resource names: one ConfigMap only.
  role("default", "configmap-updater", [rule(["update", "get"], [""], ["configmaps"], ["my-configmap"])]),
  roleBinding("default", "update-my-cm", "Role", "configmap-updater", [subject("User", "carol")]),
  // A subresource: pods and their logs.
  role("default", "pod-and-pod-logs-reader", [rule(["get", "list"], [""], ["pods", "pods/log"])]),
  roleBinding("default", "read-logs", "Role", "pod-and-pod-logs-reader", [subject("User", "logan")]),
  // Non-resource URLs, exact and with a trailing '*'.
  clusterRole("healthz", [{ verbs: ["get", "post"], nonResourceURLs: ["/healthz", "/healthz/*"] }]),
  clusterRoleBinding("healthz", "healthz", [subject("Group", "probes")]),
  // Wildcards: every resource of a group, every verb.
  clusterRole("batch-admin", [rule(["*"], ["batch"], ["*"])]),
  roleBinding("ml", "batch", "ClusterRole", "batch-admin", [subject("User", "bea")]),
  // A service account (its namespace taken from the binding), and every service account of a namespace by group.
  clusterRole("trainer", [rule(["create", "get", "list", "watch", "patch"], ["trainer.kubeflow.org"], ["trainjobs"]), rule(["get"], [""], ["pods/log"])]),
  roleBinding("ml", "trainer", "ClusterRole", "trainer", [subject("ServiceAccount", "dispatch")]),
  roleBinding("qa", "qa-readers", "ClusterRole", "cm-reader", [subject("Group", "system:serviceaccounts:qa")]),
  // A Role in another namespace than the binding's grants nothing.
  role("qa", "qa-pods", [rule(["*"], [""], ["pods"])]),
  roleBinding("ml", "wrong-namespace", "Role", "qa-pods", [subject("User", "eve")])
]

// [what to ask, who asks, namespace, expected]
type Row = readonly [ReadonlyArray<string>, ReadonlyArray<string>, string, "yes" | "no"]
const as = (user: string, ...groups: ReadonlyArray<string>): ReadonlyArray<string> => [`--as=${user}`, ...groups.map((g) => `--as-group=${g}`)]

const table: ReadonlyArray<Row> = [
  // A Role grants in its binding's namespace, only its verbs and resources.
  [["get", "pods"], as("jane"), "default", "yes"],
  [["list", "pods"], as("jane"), "default", "yes"],
  [["watch", "pods"], as("jane"), "default", "yes"],
  [["delete", "pods"], as("jane"), "default", "no"],
  [["create", "pods"], as("jane"), "default", "no"],
  [["get", "pods"], as("jane"), "ml", "no"],
  [["get", "configmaps"], as("jane"), "default", "no"],
  [["list", "pods", "--all-namespaces"], as("jane"), "default", "no"],
  // A ClusterRole through a RoleBinding grants in that namespace only.
  [["list", "configmaps"], as("dave"), "development", "yes"],
  [["list", "configmaps"], as("dave"), "default", "no"],
  [["list", "configmaps", "--all-namespaces"], as("dave"), "default", "no"],
  [["update", "configmaps"], as("dave"), "development", "no"],
  // A ClusterRoleBinding grants everywhere, to every member of the group.
  [["list", "configmaps"], as("mia", "manager"), "default", "yes"],
  [["list", "configmaps"], as("mia", "manager"), "qa", "yes"],
  [["list", "configmaps", "--all-namespaces"], as("mia", "manager"), "default", "yes"],
  [["list", "configmaps"], as("mia"), "default", "no"],
  [["delete", "configmaps"], as("mia", "manager"), "default", "no"],
  // Resource names: only the named object, never the collection.
  [["get", "configmaps/my-configmap"], as("carol"), "default", "yes"],
  [["update", "configmaps/my-configmap"], as("carol"), "default", "yes"],
  [["get", "configmaps/other"], as("carol"), "default", "no"],
  [["get", "configmaps"], as("carol"), "default", "no"],
  [["list", "configmaps"], as("carol"), "default", "no"],
  [["create", "configmaps"], as("carol"), "default", "no"],
  [["delete", "configmaps/my-configmap"], as("carol"), "default", "no"],
  // Subresources are named resource/subresource.
  [["get", "pods", "--subresource=log"], as("logan"), "default", "yes"],
  [["get", "pods", "--subresource=log"], as("jane"), "default", "no"],
  [["get", "pods"], as("logan"), "default", "yes"],
  [["get", "pods", "--subresource=status"], as("logan"), "default", "no"],
  // Non-resource URLs.
  [["get", "/healthz"], as("pat", "probes"), "default", "yes"],
  [["get", "/healthz/ready"], as("pat", "probes"), "default", "yes"],
  [["post", "/healthz"], as("pat", "probes"), "default", "yes"],
  [["get", "/metrics"], as("pat", "probes"), "default", "no"],
  [["get", "/healthz"], as("pat"), "default", "no"],
  // Wildcards cover every resource of the group and every verb, and nothing of another group.
  [["create", "jobs.batch"], as("bea"), "ml", "yes"],
  [["delete", "jobs.batch"], as("bea"), "ml", "yes"],
  [["deletecollection", "jobs.batch"], as("bea"), "ml", "yes"],
  [["create", "jobs.batch"], as("bea"), "default", "no"],
  [["create", "pods"], as("bea"), "ml", "no"],
  // Service accounts: by the binding's namespace, and by their namespace's group.
  [["create", "trainjobs.trainer.kubeflow.org"], as("system:serviceaccount:ml:dispatch"), "ml", "yes"],
  [["patch", "trainjobs.trainer.kubeflow.org"], as("system:serviceaccount:ml:dispatch"), "ml", "yes"],
  [["delete", "trainjobs.trainer.kubeflow.org"], as("system:serviceaccount:ml:dispatch"), "ml", "no"],
  [["get", "pods", "--subresource=log"], as("system:serviceaccount:ml:dispatch"), "ml", "yes"],
  [["create", "trainjobs.trainer.kubeflow.org"], as("system:serviceaccount:ml:dispatch"), "default", "no"],
  [["create", "trainjobs.trainer.kubeflow.org"], as("system:serviceaccount:qa:dispatch"), "ml", "no"],
  [["list", "configmaps"], as("system:serviceaccount:qa:anyone"), "qa", "yes"],
  [["list", "configmaps"], as("system:serviceaccount:ml:dispatch"), "qa", "no"],
  // A RoleBinding to a Role of another namespace grants nothing.
  [["get", "pods"], as("eve"), "ml", "no"],
  [["get", "pods"], as("eve"), "qa", "no"],
  // The default user is a cluster admin; system:masters may do anything.
  [["delete", "clusterroles.rbac.authorization.k8s.io"], [], "default", "yes"],
  [["impersonate", "users"], [], "default", "yes"],
  [["delete", "namespaces"], as("root", "system:masters"), "default", "yes"]
]

describe("kubectl auth can-i against RBAC", () => {
  let served: Served
  beforeAll(async () => {
    served = await serve({ rbac: {}, objects: policy })
    expect(served.simulator.rejectedSeeds).toEqual([])
  })
  afterAll(() => served.close())

  it(`answers ${table.length} requests as the bindings say`, async () => {
    const answers = []
    for (const [ask, who, namespace] of table) {
      const run = await kubectl(served, "auth", "can-i", ...ask, ...who, "-n", namespace)
      answers.push(`${[...ask, ...who, namespace].join(" ")}: ${run.stdout.trim() || run.stderr.trim()}`)
    }
    expect(answers).toEqual(table.map(([ask, who, namespace, expected]) => `${[...ask, ...who, namespace].join(" ")}: ${expected}`))
  })

  it("authorizes a pod's log as get pods/log, for the user kubectl impersonates", async () => {
    served.simulator.system.create("pods", { apiVersion: "v1", kind: "Pod", metadata: { name: "worker", namespace: "default" }, spec: { containers: [{ name: "main", image: "busybox" }] } })
    const jane = await kubectl(served, "logs", "worker", "--as=jane")
    expect(jane.stderr).toContain('pods "worker" is forbidden: User "jane" cannot get resource "pods/log" in API group "" in the namespace "default"')
    const logan = await kubectl(served, "logs", "worker", "--as=logan")
    expect(logan.stderr).not.toContain("forbidden")
  })

  it("answers SubjectAccessReviews about any user, and lists them in discovery", async () => {
    const review = async (spec: object) => {
      const response = await fetch(`${served.server.url}/apis/authorization.k8s.io/v1/subjectaccessreviews`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ apiVersion: "authorization.k8s.io/v1", kind: "SubjectAccessReview", spec })
      })
      return [response.status, ((await response.json()) as { status?: unknown }).status] as const
    }
    expect(await review({ user: "jane", resourceAttributes: { verb: "get", resource: "pods", namespace: "default" } })).toEqual([
      201,
      { allowed: true, reason: 'RBAC: allowed by RoleBinding "read-pods/default" of Role "pod-reader" to User "jane"' }
    ])
    expect(await review({ user: "jane", resourceAttributes: { verb: "get", resource: "pods", namespace: "ml" } })).toEqual([201, { allowed: false }])
    expect(await review({ user: "mia", groups: ["manager"], resourceAttributes: { verb: "list", resource: "configmaps", namespace: "qa" } })).toEqual([201, expect.objectContaining({ allowed: true })])
    expect(await review({ user: "pat", groups: ["probes"], nonResourceAttributes: { verb: "get", path: "/healthz/live" } })).toEqual([201, expect.objectContaining({ allowed: true })])
    const discovery = (await (await fetch(`${served.server.url}/apis/authorization.k8s.io/v1`)).json()) as { resources: ReadonlyArray<{ name: string }> }
    expect(discovery.resources.map((r) => r.name)).toEqual(["selfsubjectaccessreviews", "selfsubjectrulesreviews", "subjectaccessreviews"])
  })

  const list = async (who: ReadonlyArray<string>, namespace: string): Promise<ReadonlyArray<ReadonlyArray<string>>> =>
    ok(await kubectl(served, "auth", "can-i", "--list", ...who, "-n", namespace))
      .trim()
      .split("\n")
      .slice(1)
      .map((l) => l.trim().split(/\s{2,}/))

  it("lists the rules bound to a user in a namespace", async () => {
    expect(await list(as("jane"), "default")).toEqual([["pods", "[]", "[]", "[get watch list]"]])
    expect(await list(as("jane"), "ml")).toEqual([])
    expect(await list(as("carol"), "default")).toEqual([["configmaps", "[]", "[my-configmap]", "[update get]"]])
    // kubectl prints a non-resource rule per URL and verb, its RESOURCES cell empty.
    expect([...(await list(as("pat", "probes"), "default"))].sort()).toEqual([
      ["[/healthz/*]", "[]", "[get]"],
      ["[/healthz/*]", "[]", "[post]"],
      ["[/healthz]", "[]", "[get]"],
      ["[/healthz]", "[]", "[post]"]
    ])
    const sa = await list(as("system:serviceaccount:ml:dispatch"), "ml")
    expect(sa).toContainEqual(["trainjobs.trainer.kubeflow.org", "[]", "[]", "[create get list watch patch]"])
    expect(sa).toContainEqual(["pods/log", "[]", "[]", "[get]"])
    expect(await list([], "default")).toContainEqual(["*.*", "[]", "[]", "[*]"])
  })
})
