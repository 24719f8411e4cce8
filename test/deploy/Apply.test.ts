// deploy/'s overlays applied as a platform team applies them: real kubectl, server-side apply, to a simulator that
// enforces RBAC (`dispatch sim serve --rbac`; kubectl's own user is its administrator). A server dry run stores
// nothing; a real apply stores what kustomize built, with the defaults the API server adds; applying another
// overlay or the Kueue component over it changes what it should; a copy of an overlay with a misspelt field is
// refused as kube-apiserver refuses it, naming the field, and leaves what is stored as it was.
import { randomBytes } from "node:crypto"
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { background, ensureBuilt, example, kubectl, processTestMs, repoRoot, type Run, type Served } from "../../packages/cli/test/DispatchBinary.ts"
import { hashToken } from "../../packages/server/src/http/Auth.ts"
import { type Manifest, type Overlay, build, one } from "./Kustomize.ts"
import { standInForPod } from "./PodStandIn.ts"

const dir = mkdtempSync(join(tmpdir(), "dispatch-apply-"))
const admin = join(dir, "admin.kubeconfig")
const serviceAccount = "system:serviceaccount:dispatch:dispatch"
const token = randomBytes(24).toString("base64url")
const tokensYaml = `- {name: ops, group: ml-team, access: write, tokenHash: "${hashToken(token, randomBytes(16))}"}\n`
let sim: Served | undefined

beforeAll(async () => {
  await ensureBuilt()
  sim = await background(["sim", "serve"], ["--rbac", "--kubeconfig-out", admin, "--runtime", example("runtime.yaml")])
}, processTestMs)
afterAll(async () => {
  await sim?.stop()
  rmSync(dir, { recursive: true, force: true })
})

const k = (...args: ReadonlyArray<string>): Promise<Run> => kubectl(["--kubeconfig", admin, ...args])

/** A kustomization of deploy/overlays/`overlay`, with the Kueue component when `kueue`, as a user's own overlay is. */
const variant = (overlay: Overlay, kueue: boolean): string => {
  if (!kueue) return join(repoRoot, "deploy", "overlays", overlay)
  const at = join(dir, `${overlay}-kueue`)
  const from = (path: string) => relative(at, join(repoRoot, "deploy", path))
  mkdirSync(at, { recursive: true })
  writeFileSync(join(at, "kustomization.yaml"), `resources:\n  - ${from(`overlays/${overlay}`)}\ncomponents:\n  - ${from("components/kueue")}\n`)
  return at
}

/** How kubectl names an object in its output: `deployment.apps/dispatch`, `service/dispatch`. */
const kubectlName = (o: Manifest): string => {
  const slash = o.apiVersion.indexOf("/")
  return `${o.kind.toLowerCase()}${slash < 0 ? "" : `.${o.apiVersion.slice(0, slash)}`}/${o.metadata.name}`
}

const stored = async (kind: string, name: string, namespace?: string): Promise<Record<string, any>> => {
  const got = await k("get", kind, name, ...(namespace === undefined ? [] : ["-n", namespace]), "-o", "json", "--show-managed-fields")
  expect(got.stderr).toBe("")
  return JSON.parse(got.stdout)
}

// Everything the overlays could make, in the namespace and cluster-wide.
const namespacedKinds = "serviceaccounts,roles,rolebindings,deployments,services,poddisruptionbudgets,persistentvolumeclaims"
const namespacedNames = async (): Promise<string> => (await k("get", namespacedKinds, "-n", "dispatch", "-o", "name")).stdout
const canI = async (verb: string, resource: string, subresource?: string): Promise<string> =>
  (await k("auth", "can-i", verb, resource, ...(subresource === undefined ? [] : [`--subresource=${subresource}`]), "-n", "dispatch", `--as=${serviceAccount}`)).stdout.trim()

const variants = [
  ["embedded", false],
  ["postgres", false],
  ["embedded", true],
  ["postgres", true]
] as const

describe("kubectl apply -k deploy/overlays/… --server-side, to a simulator with RBAC on", () => {
  it("refuses a dry run's namespaced objects while the namespace does not exist, as kube-apiserver's admission does, and stores nothing", async () => {
    const ran = await k("apply", "-k", variant("postgres", false), "--server-side", "--dry-run=server")
    expect(ran.code).toBe(1)
    expect(ran.stdout.split("\n").filter((l) => l !== "")).toEqual([
      "namespace/dispatch serverside-applied (server dry run)",
      "clusterrole.rbac.authorization.k8s.io/dispatch-dispatch-dispatch serverside-applied (server dry run)",
      "clusterrolebinding.rbac.authorization.k8s.io/dispatch-dispatch-dispatch serverside-applied (server dry run)"
    ])
    expect(ran.stderr).toContain('Error from server (NotFound): namespaces "dispatch" not found')
    expect((await k("get", "namespace", "dispatch")).stderr).toContain('namespaces "dispatch" not found')
    expect((await k("get", "clusterrole", "dispatch-dispatch-dispatch")).code).toBe(1)
  }, processTestMs)

  it.each(variants)("dry-runs %s (Kueue component: %s) on the server: every object passes, and none is stored", async (overlay, kueue) => {
    const created = await k("apply", "--server-side", "-f", join(repoRoot, "deploy", "base", "namespace.yaml"))
    expect(created.code).toBe(0)
    const objects = await build(overlay, kueue)
    const ran = await k("apply", "-k", variant(overlay, kueue), "--server-side", "--dry-run=server")
    expect(ran.stderr).toBe("")
    expect(ran.code).toBe(0)
    expect(ran.stdout.split("\n").filter((l) => l !== "").sort()).toEqual(objects.map((o) => `${kubectlName(o)} serverside-applied (server dry run)`).sort())
    expect(await namespacedNames()).toBe("")
    for (const kind of ["clusterrole", "clusterrolebinding"]) expect((await k("get", kind, "dispatch-dispatch-dispatch")).stderr).toContain("not found")
  }, processTestMs)

  it("stores the postgres overlay as built, with the API server's defaults, and the Deployment reads its URL from the Secret", async () => {
    const secret = await k("create", "secret", "generic", "dispatch-postgres", "-n", "dispatch", "--from-literal=url=postgres://dispatch:p@db.example:5432/dispatch")
    expect(secret.code).toBe(0)
    writeFileSync(join(dir, "tokens.yaml"), tokensYaml)
    expect((await k("create", "secret", "generic", "dispatch-tokens", "-n", "dispatch", `--from-file=${join(dir, "tokens.yaml")}`)).code).toBe(0)
    const objects = await build("postgres")
    const ran = await k("apply", "-k", variant("postgres", false), "--server-side")
    expect(ran.stderr).toBe("")
    expect(ran.stdout.split("\n").filter((l) => l !== "").sort()).toEqual(objects.map((o) => `${kubectlName(o)} serverside-applied`).sort())
    for (const o of objects) expect(await stored(o.kind, o.metadata.name, o.metadata.namespace)).toMatchObject(o)
    const deployment = await stored("deployment", "dispatch", "dispatch")
    expect(deployment.metadata.managedFields.map((m: any) => [m.manager, m.operation])).toEqual([["kubectl", "Apply"]])
    expect(deployment.spec).toMatchObject({ replicas: 2, strategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } } })
    const pod = deployment.spec.template.spec
    expect(pod).toMatchObject({
      serviceAccountName: "dispatch",
      securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, seccompProfile: { type: "RuntimeDefault" } },
      restartPolicy: "Always"
    })
    expect(pod.containers.map((c: any) => c.name)).toEqual(["dispatch"])
    const container = pod.containers[0]
    // What kustomize built, and what the API server defaults (the probe's scheme, timeout and success threshold).
    expect(container.readinessProbe).toEqual({ httpGet: { path: "/readyz", port: "http", scheme: "HTTP" }, periodSeconds: 5, failureThreshold: 3, timeoutSeconds: 1, successThreshold: 1 })
    expect(container.livenessProbe).toEqual({ httpGet: { path: "/healthz", port: "http", scheme: "HTTP" }, initialDelaySeconds: 10, periodSeconds: 10, failureThreshold: 3, timeoutSeconds: 1, successThreshold: 1 })
    expect(container.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ["ALL"] } })
    expect(container.image).toBe("dispatch:0.1.0")
    expect(container.env.find((e: any) => e.name === "DATABASE_URL")).toEqual({ name: "DATABASE_URL", valueFrom: { secretKeyRef: { name: "dispatch-postgres", key: "url" } } })
    expect(await canI("patch", "trainjobs.trainer.kubeflow.org")).toBe("yes")
    expect(await canI("patch", "workloads.kueue.x-k8s.io", "status")).toBe("no")
    expect(await canI("get", "secrets")).toBe("no")
  }, processTestMs)

  it("applied again with the Kueue component, the Role becomes Kueue mode's: Workloads and their status, no patch of TrainJobs", async () => {
    const objects = await build("postgres", true)
    const ran = await k("apply", "-k", variant("postgres", true), "--server-side")
    expect(ran.stderr).toBe("")
    expect(ran.code).toBe(0)
    const role = one(objects, "Role")
    expect((await stored("role", role.metadata.name, "dispatch"))["rules"]).toEqual(role["rules"])
    expect(await canI("patch", "trainjobs.trainer.kubeflow.org")).toBe("no")
    expect(await canI("create", "trainjobs.trainer.kubeflow.org")).toBe("yes")
    expect(await canI("patch", "workloads.kueue.x-k8s.io", "status")).toBe("yes")
  }, processTestMs)

  it("applied again as the embedded overlay, the Deployment drops what only postgres set, and the claim is stored", async () => {
    const objects = await build("embedded")
    const ran = await k("apply", "-k", variant("embedded", false), "--server-side")
    expect(ran.stderr).toBe("")
    expect(ran.code).toBe(0)
    const deployment = await stored("deployment", "dispatch", "dispatch")
    expect(deployment.spec.replicas).toBe(1)
    expect(deployment.spec.strategy).toEqual({ type: "Recreate" })
    const env = deployment.spec.template.spec.containers[0].env.map((e: any) => e.name)
    expect(env).not.toContain("DATABASE_URL")
    expect(env).toContain("DISPATCH_DATA_DIR")
    expect(deployment.spec.template.spec.volumes.find((v: any) => v.name === "data")).toEqual({ name: "data", persistentVolumeClaim: { claimName: "dispatch-data" } })
    const claim = one(objects, "PersistentVolumeClaim")
    expect(await stored("pvc", claim.metadata.name, "dispatch")).toMatchObject({ ...claim, spec: { ...(claim["spec"] as object), volumeMode: "Filesystem" } })
  }, processTestMs)

  it("the embedded overlay's pod, stood in for where no pod runs, has the Deployment's environment and its Secret's files, and serves", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as { port: number }
        probe.close(() => resolve(port))
      })
    })
    const root = mkdtempSync(join(dir, "pod-"))
    const pod = await standInForPod({ kubeconfig: admin, namespace: "dispatch", deployment: "dispatch", root, host: "127.0.0.1", port })
    try {
      expect(pod.env).toEqual({
        DISPATCH_HOST: "127.0.0.1",
        DISPATCH_PORT: String(port),
        DISPATCH_TOKENS: join(root, "etc/dispatch/tokens/tokens.yaml"),
        DISPATCH_LOG_FORMAT: "json",
        DISPATCH_INSTANCE: "dispatch-standin",
        DISPATCH_DATA_DIR: join(root, "var/lib/dispatch/data")
      })
      expect(readFileSync(join(root, "etc/dispatch/tokens/tokens.yaml"), "utf8")).toBe(tokensYaml)
      expect((await fetch(`${pod.url}/readyz`)).status).toBe(200)
      const me = await fetch(`${pod.url}/api/v1/users/current`, { headers: { authorization: `Bearer ${token}` } })
      expect(await me.json()).toMatchObject({ username: "ops", via: "token" })
      // Its JSON access log, as DISPATCH_LOG_FORMAT says.
      expect(pod.stderr()).toMatch(/^\{.*"\/api\/v1\/users\/current".*\}$/m)
    } finally {
      await pod.stop()
    }
  }, processTestMs)

  // A copy of deploy/ with one field misspelt, as a typo in an edited overlay makes it.
  const misspelt = (file: string, from: string, to: string): string => {
    const copy = mkdtempSync(join(dir, "typo-"))
    cpSync(join(repoRoot, "deploy"), copy, { recursive: true })
    const text = readFileSync(join(copy, file), "utf8")
    expect(text).toContain(from)
    writeFileSync(join(copy, file), text.replace(from, to))
    return join(copy, "overlays", "postgres")
  }
  const typos = [
    ["overlays/postgres/deployment.yaml", "  replicas: 2", "  replica: 2", ".spec.replica"],
    ["base/deployment.yaml", "readinessProbe:", "readinesProbe:", '.spec.template.spec.containers[name="dispatch"].readinesProbe']
  ] as const

  it.each(typos)("refuses %s with %s misspelt, naming the field, dry run or not, and leaves the stored Deployment as it was", async (file, from, to, path) => {
    const before = await stored("deployment", "dispatch", "dispatch")
    const copy = misspelt(file, from, to)
    const message = `Error from server: failed to create typed patch object (dispatch/dispatch; apps/v1, Kind=Deployment): ${path}: field not declared in schema`
    for (const dryRun of [["--dry-run=server"], []]) {
      const ran = await k("apply", "-k", copy, "--server-side", ...dryRun)
      expect(ran.code).toBe(1)
      expect(ran.stderr.trim()).toBe(message)
      expect(ran.stdout).not.toContain("deployment.apps/dispatch")
    }
    const after = await stored("deployment", "dispatch", "dispatch")
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion)
    expect(after.spec).toEqual(before.spec)
  }, processTestMs)
})
