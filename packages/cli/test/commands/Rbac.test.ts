// `dispatch rbac`: what it prints is the declaration's RBAC, in kubectl's forms. Each object is compared
// with the one `kubectl create ... --dry-run=client -o yaml` makes from the same words, against a
// simulator that serves the resources named (so kubectl resolves each resource as a cluster would), and
// the whole output goes through `kubectl apply --dry-run=client`.
import { execFile } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { rbacObjects, rulesOf, type Mode, Modes, type PolicyRule, type RbacObject } from "@dispatch/effects"
import { kubeconfigFor, Simulator, startSimServer } from "@dispatch/sim"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parse, parseAllDocuments } from "yaml"
import { ExitCode } from "../../src/ExitCode.ts"
import { dispatch, ensureBuilt, processTestMs, type Run } from "../DispatchBinary.ts"

/** Runs the real kubectl with `input` on its standard input. */
const kubectlWith = (args: ReadonlyArray<string>, input = ""): Promise<Run> =>
  new Promise((resolve) => {
    const child = execFile("kubectl", [...args], { timeout: processTestMs }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr })
    })
    child.stdin?.end(input)
  })

const dir = mkdtempSync(join(tmpdir(), "dispatch-rbac-"))
let closeSim: (() => Promise<void>) | undefined
let simKubeconfig = ""
let closeDiscovery: (() => Promise<void>) | undefined
let discoveryKubeconfig = ""

// The API groups a real cluster serves for these objects: kubectl apply needs their discovery to map the
// kinds, and finds none of them stored (a dry run creates each).
const discovery: Readonly<Record<string, unknown>> = {
  "/api": { kind: "APIVersions", versions: ["v1"], serverAddressByClientCIDRs: [] },
  "/apis": {
    kind: "APIGroupList",
    apiVersion: "v1",
    groups: [{ name: "rbac.authorization.k8s.io", versions: [{ groupVersion: "rbac.authorization.k8s.io/v1", version: "v1" }], preferredVersion: { groupVersion: "rbac.authorization.k8s.io/v1", version: "v1" } }]
  },
  "/api/v1": {
    kind: "APIResourceList",
    groupVersion: "v1",
    resources: [{ name: "serviceaccounts", singularName: "serviceaccount", namespaced: true, kind: "ServiceAccount", verbs: ["create", "delete", "get", "list", "patch", "update"], shortNames: ["sa"] }]
  },
  "/apis/rbac.authorization.k8s.io/v1": {
    kind: "APIResourceList",
    apiVersion: "v1",
    groupVersion: "rbac.authorization.k8s.io/v1",
    resources: [
      ["roles", "Role", true],
      ["rolebindings", "RoleBinding", true],
      ["clusterroles", "ClusterRole", false],
      ["clusterrolebindings", "ClusterRoleBinding", false]
    ].map(([name, kind, namespaced]) => ({ name, singularName: String(kind).toLowerCase(), namespaced, kind, verbs: ["create", "delete", "get", "list", "patch", "update"] }))
  }
}

beforeAll(async () => {
  await ensureBuilt()
  const sim = await startSimServer({ simulator: new Simulator({ seed: 1, controllers: { kueue: { queues: {} } } }), tickMs: 100 })
  closeSim = () => sim.close()
  simKubeconfig = join(dir, "sim.kubeconfig")
  writeFileSync(simKubeconfig, kubeconfigFor(sim))
  const server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0] ?? ""
    const body = discovery[path]
    res.writeHead(body === undefined ? 404 : 200, { "Content-Type": "application/json" })
    res.end(JSON.stringify(body ?? { kind: "Status", apiVersion: "v1", status: "Failure", reason: "NotFound", code: 404, message: `${path} not found`, details: {} }))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  closeDiscovery = () => new Promise((resolve) => server.close(() => resolve()))
  discoveryKubeconfig = join(dir, "discovery.kubeconfig")
  writeFileSync(discoveryKubeconfig, kubeconfigFor({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }))
}, processTestMs)

afterAll(async () => {
  await closeSim?.()
  await closeDiscovery?.()
  rmSync(dir, { recursive: true, force: true })
})

const subject = (mode: Mode) => ({ mode, namespace: "ml-team", serviceAccount: "dispatch" })
const argsOf = (mode: Mode) => ["rbac", "--mode", mode, "--namespace", "ml-team", "--service-account", "dispatch"]

/** An object as kubectl's generators make it: without our labels, and without the null creationTimestamp. */
const comparable = (object: unknown): unknown => {
  const { metadata, ...rest } = object as { readonly metadata: Record<string, unknown> }
  const { labels: _labels, creationTimestamp: _created, ...kept } = metadata
  return { ...rest, metadata: kept }
}

/** `kubectl create role|clusterrole NAME` of one rule: its verbs on its one resource (`plural.group/sub`). */
const kubectlRule = async (kind: "role" | "clusterrole", rule: PolicyRule): Promise<ReadonlyArray<unknown>> => {
  const [plural = "", sub] = (rule.resources[0] ?? "").split("/")
  const group = rule.apiGroups[0] ?? ""
  const resource = `${plural}${group === "" ? "" : `.${group}`}${sub === undefined ? "" : `/${sub}`}`
  const run = await kubectlWith(["--kubeconfig", simKubeconfig, "create", kind, "r", ...(kind === "role" ? ["-n", "ml-team"] : []), `--verb=${rule.verbs.join(",")}`, `--resource=${resource}`, "--dry-run=client", "-o", "yaml"])
  expect(run.stderr).toBe("")
  return (parse(run.stdout) as { readonly rules: ReadonlyArray<unknown> }).rules
}

describe("dispatch rbac", () => {
  for (const mode of Modes) {
    it(`${mode} mode: prints the declaration's RBAC as YAML and as a JSON List, each object as kubectl makes it`, { timeout: processTestMs }, async () => {
      const expected = rbacObjects(subject(mode))
      const yaml = await dispatch(argsOf(mode))
      expect([yaml.code, yaml.stderr]).toEqual([ExitCode.ok, ""])
      const printed = parseAllDocuments(yaml.stdout).map((d) => d.toJS() as RbacObject)
      expect(printed).toEqual(expected)
      const json = await dispatch([...argsOf(mode), "-o", "json"])
      expect([json.code, json.stderr]).toEqual([ExitCode.ok, ""])
      expect(JSON.parse(json.stdout)).toEqual({ apiVersion: "v1", kind: "List", items: expected, metadata: {} })

      const byKind = (kind: string) => printed.find((o) => o["kind"] === kind)
      const name = "dispatch-ml-team-dispatch"
      // Every rule, as kubectl makes it from the same verbs and resource (which the simulator must serve).
      const { namespaced, clusterScoped } = rulesOf(mode)
      const roleRules = (await Promise.all(namespaced.map((r) => kubectlRule("role", r)))).flat()
      expect(byKind("Role")?.["rules"]).toEqual(roleRules)
      const clusterRules = (await Promise.all(clusterScoped.map((r) => kubectlRule("clusterrole", r)))).flat()
      expect(byKind("ClusterRole")?.["rules"]).toEqual(clusterRules)
      // The other objects, whole.
      const made = async (args: ReadonlyArray<string>) => {
        const run = await kubectlWith(["--kubeconfig", simKubeconfig, "create", ...args, "--dry-run=client", "-o", "yaml"])
        expect(run.stderr).toBe("")
        return comparable(parse(run.stdout))
      }
      expect(comparable(byKind("ServiceAccount"))).toEqual(await made(["serviceaccount", "dispatch", "-n", "ml-team"]))
      expect(comparable(byKind("RoleBinding"))).toEqual(await made(["rolebinding", name, "-n", "ml-team", `--role=${name}`, "--serviceaccount=ml-team:dispatch"]))
      expect(comparable(byKind("ClusterRoleBinding"))).toEqual(await made(["clusterrolebinding", name, `--clusterrole=${name}`, "--serviceaccount=ml-team:dispatch"]))
      expect(comparable({ ...byKind("Role"), rules: [] })).toEqual(comparable({ ...((await made(["role", name, "-n", "ml-team", "--verb=get", "--resource=pods"])) as object), rules: [] }))

      // kubectl applies the output as it is, YAML and JSON alike.
      for (const text of [yaml.stdout, json.stdout]) {
        const applied = await kubectlWith(["--kubeconfig", discoveryKubeconfig, "apply", "--dry-run=client", "--validate=false", "-f", "-"], text)
        expect(applied.stderr).toBe("")
        expect(applied.stdout.trim().split("\n")).toEqual([
          "serviceaccount/dispatch created (dry run)",
          `role.rbac.authorization.k8s.io/${name} created (dry run)`,
          `rolebinding.rbac.authorization.k8s.io/${name} created (dry run)`,
          `clusterrole.rbac.authorization.k8s.io/${name} created (dry run)`,
          `clusterrolebinding.rbac.authorization.k8s.io/${name} created (dry run)`
        ])
      }
    })
  }

  it("refuses a bad line with every problem and the usage, exit 2, printing nothing on stdout", { timeout: processTestMs }, async () => {
    const run = await dispatch(["rbac", "--mode", "batch", "-n", "Team_A", "-o", "text"])
    expect(run.code).toBe(ExitCode.usage)
    expect(run.stdout).toBe("")
    expect(run.stderr).toContain(`--mode "batch" is not one of plain, kueue`)
    expect(run.stderr).toContain(`--namespace "Team_A": a lowercase RFC 1123 label`)
    expect(run.stderr).toContain("--service-account is required")
    expect(run.stderr).toMatch(/--output "text" is not one of yaml, json/)
    expect(run.stderr).toContain("usage: dispatch rbac")
    const badAccount = await dispatch(["rbac", "-n", "ml", "--service-account", "Not.Valid-"])
    expect([badAccount.code, badAccount.stdout]).toEqual([ExitCode.usage, ""])
    expect(badAccount.stderr).toContain(`--service-account "Not.Valid-": a lowercase RFC 1123 subdomain`)
  })
})
