// deploy/ as kubectl's kustomize builds it: the RBAC is exactly what `dispatch rbac` prints for the base's
// namespace and ServiceAccount (and the checked-in copy is current), the Deployment is probed, locked down and
// configured only through settings `dispatch serve` knows, and each overlay stores where it says.
import { execFile } from "node:child_process"
import { join } from "node:path"
import { beforeAll, describe, expect, it } from "vitest"
import { ServeSettings } from "../../packages/cli/src/ServeSettings.ts"
import { dispatch, ensureBuilt, processBoundMs, processTestMs, repoRoot } from "../../packages/cli/test/DispatchBinary.ts"
import { type Manifest, type Overlay, build, documents, one, overlays } from "./Kustomize.ts"

interface EnvVar {
  readonly name: string
  readonly value?: string
  readonly valueFrom?: { readonly secretKeyRef?: { readonly name: string; readonly key: string }; readonly fieldRef?: { readonly fieldPath: string } }
}
interface Mount {
  readonly name: string
  readonly mountPath: string
  readonly readOnly?: boolean
}
interface Probe {
  readonly httpGet?: { readonly path: string; readonly port: string | number }
}
interface Container {
  readonly name: string
  readonly image: string
  readonly args?: ReadonlyArray<string>
  readonly env?: ReadonlyArray<EnvVar>
  readonly ports?: ReadonlyArray<{ readonly name?: string; readonly containerPort: number }>
  readonly readinessProbe?: Probe
  readonly livenessProbe?: Probe
  readonly resources?: { readonly requests?: Record<string, string> }
  readonly securityContext?: Record<string, unknown>
  readonly volumeMounts?: ReadonlyArray<Mount>
}
interface Volume {
  readonly name: string
  readonly emptyDir?: object
  readonly secret?: { readonly secretName: string }
  readonly persistentVolumeClaim?: { readonly claimName: string }
}
interface PodSpec {
  readonly serviceAccountName?: string
  readonly securityContext?: Record<string, unknown>
  readonly containers: ReadonlyArray<Container>
  readonly volumes?: ReadonlyArray<Volume>
}
interface Deployment extends Manifest {
  readonly spec: {
    readonly replicas?: number
    readonly strategy?: { readonly type: string }
    readonly selector: { readonly matchLabels: Record<string, string> }
    readonly template: { readonly metadata: { readonly labels: Record<string, string> }; readonly spec: PodSpec }
  }
}

const rbacKinds = new Set(["ServiceAccount", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding"])
const byKindAndName = (a: Manifest, b: Manifest) => `${a.kind}/${a.metadata.name}`.localeCompare(`${b.kind}/${b.metadata.name}`)

/** The settings `dispatch serve` reads from the environment. */
const settingVariables = new Set(Object.values(ServeSettings).flatMap((s) => (s.env === undefined ? [] : [s.env])))

const deploymentOf = (objects: ReadonlyArray<Manifest>): Deployment => one(objects, "Deployment", "dispatch") as Deployment
const containerOf = (deployment: Deployment): Container => {
  expect(deployment.spec.template.spec.containers.map((c) => c.name)).toEqual(["dispatch"])
  return deployment.spec.template.spec.containers[0] as Container
}
const envOf = (container: Container): ReadonlyMap<string, EnvVar> => new Map((container.env ?? []).map((e) => [e.name, e]))

// The volume mounted at the longest mount path that holds `path`, if any.
const volumeHolding = (deployment: Deployment, container: Container, path: string): { readonly mount: Mount; readonly volume: Volume } | undefined => {
  const mounts = (container.volumeMounts ?? []).filter((m) => path === m.mountPath || path.startsWith(`${m.mountPath.replace(/\/$/, "")}/`))
  const mount = mounts.sort((a, b) => b.mountPath.length - a.mountPath.length)[0]
  if (mount === undefined) return undefined
  const volume = (deployment.spec.template.spec.volumes ?? []).find((v) => v.name === mount.name)
  return volume === undefined ? undefined : { mount, volume }
}

describe("deploy/", () => {
  const built = new Map<string, ReadonlyArray<Manifest>>()
  const printed = new Map<string, ReadonlyArray<Manifest>>()
  const key = (overlay: Overlay, kueue: boolean) => `${overlay}${kueue ? "+kueue" : ""}`
  beforeAll(async () => {
    await ensureBuilt()
    for (const overlay of overlays) for (const kueue of [false, true]) built.set(key(overlay, kueue), await build(overlay, kueue))
    for (const mode of ["plain", "kueue"]) {
      const run = await dispatch(["rbac", "--mode", mode, "--namespace", "dispatch", "--service-account", "dispatch"])
      expect(run.stderr).toBe("")
      printed.set(mode, documents(run.stdout))
    }
  }, processTestMs)
  const objectsOf = (overlay: Overlay, kueue = false): ReadonlyArray<Manifest> => built.get(key(overlay, kueue)) ?? []

  it("holds the RBAC that `node scripts/deploy-rbac.mjs` writes now", async () => {
    const check = await new Promise<{ readonly code: number; readonly stderr: string }>((resolve) =>
      execFile("node", [join(repoRoot, "scripts", "deploy-rbac.mjs"), "--check"], { timeout: processBoundMs }, (error, _stdout, stderr) =>
        resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stderr })
      )
    )
    expect(check).toEqual({ code: 0, stderr: "" })
  })

  for (const overlay of overlays)
    for (const kueue of [false, true])
      it(`${key(overlay, kueue)}: grants exactly what dispatch rbac --mode ${kueue ? "kueue" : "plain"} prints, to the ServiceAccount the pods run as`, () => {
        const objects = objectsOf(overlay, kueue)
        expect(objects.length).toBeGreaterThan(0)
        const rbac = objects.filter((o) => rbacKinds.has(o.kind)).toSorted(byKindAndName)
        expect(rbac).toEqual((printed.get(kueue ? "kueue" : "plain") ?? []).toSorted(byKindAndName))
        const account = one(objects, "ServiceAccount")
        expect(deploymentOf(objects).spec.template.spec.serviceAccountName).toBe(account.metadata.name)
        // Everything in the namespace the base makes, which is the namespace the Role grants in.
        const namespace = one(objects, "Namespace").metadata.name
        expect(one(objects, "Role").metadata.namespace).toBe(namespace)
        expect(objects.filter((o) => !["Namespace", "ClusterRole", "ClusterRoleBinding"].includes(o.kind) && o.metadata.namespace !== namespace)).toEqual([])
      })

  for (const overlay of overlays)
    it(`${overlay}: probes /readyz and /healthz on the port dispatch serve listens on, which the Service and the PodDisruptionBudget select`, () => {
      const objects = objectsOf(overlay)
      const deployment = deploymentOf(objects)
      const container = containerOf(deployment)
      const env = envOf(container)
      expect(container.args).toEqual(["serve"])
      expect(env.get("DISPATCH_HOST")?.value).toBe("0.0.0.0")
      const port = container.ports?.find((p) => p.name === "http")
      expect(port?.containerPort).toBe(Number(env.get("DISPATCH_PORT")?.value))
      expect(container.readinessProbe?.httpGet).toEqual({ path: "/readyz", port: "http" })
      expect(container.livenessProbe?.httpGet).toEqual({ path: "/healthz", port: "http" })
      expect(Object.keys(container.resources?.requests ?? {}).toSorted()).toEqual(["cpu", "memory"])
      const labels = deployment.spec.template.metadata.labels
      expect(labels).toMatchObject(deployment.spec.selector.matchLabels)
      const service = one(objects, "Service", "dispatch") as Manifest & { readonly spec: { readonly selector: Record<string, string>; readonly ports: ReadonlyArray<{ readonly targetPort: string }> } }
      expect(labels).toMatchObject(service.spec.selector)
      expect(service.spec.ports.map((p) => p.targetPort)).toEqual(["http"])
      const budget = one(objects, "PodDisruptionBudget", "dispatch") as Manifest & { readonly spec: { readonly maxUnavailable?: number; readonly selector: { readonly matchLabels: Record<string, string> } } }
      expect(labels).toMatchObject(budget.spec.selector.matchLabels)
      expect(budget.spec.maxUnavailable).toBe(1)
    })

  for (const overlay of overlays)
    it(`${overlay}: runs as a numeric non-root user, with a read-only root, no privilege escalation and no capabilities`, () => {
      const deployment = deploymentOf(objectsOf(overlay))
      const container = containerOf(deployment)
      const pod = deployment.spec.template.spec.securityContext ?? {}
      expect(pod["runAsNonRoot"]).toBe(true)
      expect(Number.isInteger(pod["runAsUser"])).toBe(true)
      expect(pod["runAsUser"]).not.toBe(0)
      expect(container.securityContext).toEqual({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ["ALL"] } })
      // Every mount names a volume, and /tmp is writable scratch.
      const volumes = new Set((deployment.spec.template.spec.volumes ?? []).map((v) => v.name))
      expect((container.volumeMounts ?? []).filter((m) => !volumes.has(m.name))).toEqual([])
      expect(volumeHolding(deployment, container, "/tmp/x")?.volume.emptyDir).toBeDefined()
    })

  for (const overlay of overlays)
    it(`${overlay}: sets only variables dispatch serve reads, its tokens from a mounted Secret`, () => {
      const container = containerOf(deploymentOf(objectsOf(overlay)))
      const names = (container.env ?? []).map((e) => e.name)
      expect(names.filter((n) => !settingVariables.has(n))).toEqual([])
      expect(new Set(names).size).toBe(names.length)
      const deployment = deploymentOf(objectsOf(overlay))
      const tokens = envOf(container).get("DISPATCH_TOKENS")?.value ?? ""
      const holder = volumeHolding(deployment, container, tokens)
      expect(holder?.volume.secret?.secretName).toBe("dispatch-tokens")
      expect(holder?.mount.readOnly).toBe(true)
    })

  it("embedded: one replica, replaced (never rolled) on update, PGlite's data directory on the PersistentVolumeClaim", () => {
    const objects = objectsOf("embedded")
    const deployment = deploymentOf(objects)
    const container = containerOf(deployment)
    expect(deployment.spec.replicas).toBe(1)
    expect(deployment.spec.strategy?.type).toBe("Recreate")
    const env = envOf(container)
    expect(env.has("DATABASE_URL")).toBe(false)
    const holder = volumeHolding(deployment, container, env.get("DISPATCH_DATA_DIR")?.value ?? "")
    const claim = one(objects, "PersistentVolumeClaim") as Manifest & { readonly spec: { readonly accessModes: ReadonlyArray<string> } }
    expect(holder?.volume.persistentVolumeClaim?.claimName).toBe(claim.metadata.name)
    expect(holder?.mount.readOnly).not.toBe(true)
    expect(claim.spec.accessModes).toEqual(["ReadWriteOnce"])
  })

  it("postgres: two or more replicas, DATABASE_URL from a Secret, no volume of its own", () => {
    const objects = objectsOf("postgres")
    const deployment = deploymentOf(objects)
    const container = containerOf(deployment)
    expect(deployment.spec.replicas).toBeGreaterThanOrEqual(2)
    const env = envOf(container)
    expect(env.get("DATABASE_URL")).toEqual({ name: "DATABASE_URL", valueFrom: { secretKeyRef: { name: "dispatch-postgres", key: "url" } } })
    expect(env.has("DISPATCH_DATA_DIR")).toBe(false)
    expect(objects.filter((o) => o.kind === "PersistentVolumeClaim" || o.kind === "Secret")).toEqual([])
  })
})
