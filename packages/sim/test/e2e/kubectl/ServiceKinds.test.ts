// The real kubectl deploying a service to the simulator with kustomize and server-side apply: a server
// dry run that stores nothing, the apply itself, `kubectl get` of each kind with the columns kubectl
// prints for a real server, and a misspelt field refused as kube-apiserver refuses it.
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Served, serve } from "../../HttpFixture.ts"
import { kubectl, ok } from "./KubectlFixture.ts"

const fixtures = join(import.meta.dirname, "fixtures", "service-kinds")
const base = join(fixtures, "base")

// The header and the first row of a `kubectl get`, split on runs of spaces (AGE is left out: it moves).
const table = (output: string): ReadonlyArray<ReadonlyArray<string>> =>
  output
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s{2,}/))

describe("kubectl apply -k of the built-in kinds a deployment uses", () => {
  let served: Served
  beforeAll(async () => {
    served = await serve()
  })
  afterAll(() => served.close())

  const stored = (resource: string, name: string) => served.simulator.system.get(resource, resource === "namespaces" ? undefined : "web", name)

  it("dry-runs on the server without storing anything, then applies every object", async () => {
    // As against a real server, a dry run stores nothing, so the namespace it would create is not
    // there for the objects in it.
    const first = await kubectl(served, "apply", "-k", base, "--server-side", "--dry-run=server")
    expect(first.stdout).toBe("namespace/web serverside-applied (server dry run)\n")
    expect(first.stderr).toContain('Error from server (NotFound): namespaces "web" not found')
    expect(stored("namespaces", "web")).toBeUndefined()
    ok(await kubectl(served, "create", "namespace", "web"))
    const dry = ok(await kubectl(served, "apply", "-k", base, "--server-side", "--dry-run=server"))
    expect(dry.trim().split("\n")).toEqual([
      "namespace/web serverside-applied (server dry run)",
      "serviceaccount/web serverside-applied (server dry run)",
      expect.stringMatching(/^configmap\/web-settings-[a-z0-9]+ serverside-applied \(server dry run\)$/),
      expect.stringMatching(/^secret\/web-db-[a-z0-9]+ serverside-applied \(server dry run\)$/),
      "service/web serverside-applied (server dry run)",
      "persistentvolumeclaim/web-data serverside-applied (server dry run)",
      "deployment.apps/web serverside-applied (server dry run)",
      "poddisruptionbudget.policy/web serverside-applied (server dry run)"
    ])
    expect(stored("serviceaccounts", "web")).toBeUndefined()
    expect(stored("deployments", "web")).toBeUndefined()

    const applied = ok(await kubectl(served, "apply", "-k", base, "--server-side"))
    expect(applied).toContain("deployment.apps/web serverside-applied")
    expect(applied).toContain("poddisruptionbudget.policy/web serverside-applied")
    expect(stored("deployments", "web")).toMatchObject({
      metadata: { labels: { "app.kubernetes.io/name": "web" } },
      spec: { replicas: 2, strategy: { type: "RollingUpdate", rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" } }, revisionHistoryLimit: 10, progressDeadlineSeconds: 600 }
    })
    expect(stored("services", "web")).toMatchObject({ spec: { type: "ClusterIP", clusterIP: expect.stringMatching(/^10\.(9[6-9]|10[0-9]|11[01])\./), ports: [{ name: "http", port: 80, targetPort: "http", protocol: "TCP" }] } })
    expect(stored("persistentvolumeclaims", "web-data")).toMatchObject({ spec: { volumeMode: "Filesystem" }, status: { phase: "Pending" } })
    // A second dry run against the stored objects changes nothing either.
    expect(ok(await kubectl(served, "apply", "-k", base, "--server-side", "--dry-run=server"))).toContain("deployment.apps/web serverside-applied (server dry run)")
  })

  it("lists each kind with kubectl's columns", async () => {
    const deployments = table(ok(await kubectl(served, "get", "deploy", "-n", "web")))
    expect(deployments[0]).toEqual(["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"])
    expect(deployments[1]?.slice(0, 4)).toEqual(["web", "0/2", "0", "0"])
    const wide = table(ok(await kubectl(served, "get", "deployment", "web", "-n", "web", "-o", "wide")))
    expect(wide[0]).toEqual(["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"])
    expect(wide[1]?.slice(5)).toEqual(["web", "registry.example/web:1.2.3", "app=web"])
    const services = table(ok(await kubectl(served, "get", "svc", "-n", "web")))
    expect(services[0]).toEqual(["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE"])
    expect(services[1]?.slice(0, 5)).toEqual(["web", "ClusterIP", expect.stringMatching(/^10\./), "<none>", "80/TCP"])
    const claims = table(ok(await kubectl(served, "get", "pvc", "-n", "web")))
    expect(claims[0]).toEqual(["NAME", "STATUS", "VOLUME", "CAPACITY", "ACCESS MODES", "STORAGECLASS", "VOLUMEATTRIBUTESCLASS", "AGE"])
    expect(claims[1]?.slice(0, 3)).toEqual(["web-data", "Pending", "<unset>"])
    const budgets = table(ok(await kubectl(served, "get", "pdb", "-n", "web")))
    expect(budgets[0]).toEqual(["NAME", "MIN AVAILABLE", "MAX UNAVAILABLE", "ALLOWED DISRUPTIONS", "AGE"])
    expect(budgets[1]?.slice(0, 4)).toEqual(["web", "1", "N/A", "0"])
    const secrets = table(ok(await kubectl(served, "get", "secrets", "-n", "web")))
    expect(secrets[0]).toEqual(["NAME", "TYPE", "DATA", "AGE"])
    expect(secrets[1]?.slice(1, 3)).toEqual(["Opaque", "1"])
    const accounts = table(ok(await kubectl(served, "get", "sa", "-n", "web")))
    expect(accounts[0]).toEqual(["NAME", "SECRETS", "AGE"])
    // The secret's value reads back as it was given.
    const name = secrets[1]?.[0] ?? ""
    expect(Buffer.from(ok(await kubectl(served, "get", "secret", name, "-n", "web", "-o", "jsonpath={.data.url}")), "base64").toString()).toBe("postgres://web@db/web")
  })

  it("refuses a misspelt field, with the dry run as without, and stores nothing of it", async () => {
    const typo = join(fixtures, "typo")
    for (const dryRun of [["--dry-run=server"], []]) {
      const refused = await kubectl(served, "apply", "-k", typo, "--server-side", ...dryRun)
      expect(refused.code).not.toBe(0)
      expect(refused.stderr).toContain("failed to create typed patch object (web/web; apps/v1, Kind=Deployment): .spec.replicass: field not declared in schema")
    }
    expect(stored("deployments", "web")).toMatchObject({ spec: { replicas: 2 } })
    // Client-side apply (a create with fieldValidation=Strict) is refused with the strict decoding error.
    ok(await kubectl(served, "delete", "deployment", "web", "-n", "web"))
    const created = await kubectl(served, "apply", "-k", typo)
    expect(created.code).not.toBe(0)
    expect(created.stderr).toContain('Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replicass"')
    expect(stored("deployments", "web")).toBeUndefined()
  })

  it("creates each kind with kubectl's typed commands, which send protobuf", async () => {
    expect(ok(await kubectl(served, "create", "deployment", "hello", "--image=busybox:1.36", "--replicas=3", "--port=8080"))).toBe("deployment.apps/hello created\n")
    expect(served.simulator.system.get("deployments", "default", "hello")).toMatchObject({
      spec: { replicas: 3, selector: { matchLabels: { app: "hello" } }, template: { spec: { containers: [{ name: "busybox", image: "busybox:1.36", ports: [{ containerPort: 8080, protocol: "TCP" }], imagePullPolicy: "IfNotPresent" }] } } }
    })
    expect(ok(await kubectl(served, "create", "service", "clusterip", "hello", "--tcp=80:8080"))).toBe("service/hello created\n")
    expect(served.simulator.system.get("services", "default", "hello")).toMatchObject({ spec: { type: "ClusterIP", ports: [{ name: "80-8080", port: 80, targetPort: 8080, protocol: "TCP" }] } })
    expect(ok(await kubectl(served, "create", "secret", "generic", "hello", "--from-literal=token=s3cret"))).toBe("secret/hello created\n")
    expect(served.simulator.system.get("secrets", "default", "hello")).toMatchObject({ type: "Opaque", data: { token: Buffer.from("s3cret").toString("base64") } })
    expect(ok(await kubectl(served, "create", "serviceaccount", "hello"))).toBe("serviceaccount/hello created\n")
    expect(ok(await kubectl(served, "create", "poddisruptionbudget", "hello", "--selector=app=hello", "--min-available=1"))).toBe("poddisruptionbudget.policy/hello created\n")
  })

  it("lists the kinds in discovery with their short names", async () => {
    const resources = ok(await kubectl(served, "api-resources", "--no-headers"))
    const row = (name: string) => resources.split("\n").find((line) => line.startsWith(`${name} `))?.trim().split(/\s+/)
    expect(row("deployments")).toEqual(["deployments", "deploy", "apps/v1", "true", "Deployment"])
    expect(row("services")).toEqual(["services", "svc", "v1", "true", "Service"])
    expect(row("persistentvolumeclaims")).toEqual(["persistentvolumeclaims", "pvc", "v1", "true", "PersistentVolumeClaim"])
    expect(row("poddisruptionbudgets")).toEqual(["poddisruptionbudgets", "pdb", "policy/v1", "true", "PodDisruptionBudget"])
    expect(row("serviceaccounts")).toEqual(["serviceaccounts", "sa", "v1", "true", "ServiceAccount"])
    expect(row("secrets")).toEqual(["secrets", "v1", "true", "Secret"])
  })
})

describe("kubectl apply -k, client-side, of the built-in kinds a deployment uses", () => {
  let served: Served
  beforeAll(async () => {
    served = await serve()
  })
  afterAll(() => served.close())

  it("creates every object, then finds each unchanged, and patches one field", async () => {
    // Not a dry run: the namespace is there for the objects in it.
    const created = ok(await kubectl(served, "apply", "-k", base))
    expect(created).toContain("deployment.apps/web created")
    expect(created).toContain("service/web created")
    const budget = served.simulator.system.get("poddisruptionbudgets", "web", "web")
    const again = ok(await kubectl(served, "apply", "-k", base)).trim().split("\n")
    // kubectl always sends a budget's selector (its patch strategy is replace), so it reports the budget
    // configured whatever the server holds; the patch changes nothing stored.
    expect(again.filter((line) => !line.endsWith(" unchanged"))).toEqual(["poddisruptionbudget.policy/web configured"])
    expect(served.simulator.system.get("poddisruptionbudgets", "web", "web")?.["metadata"]).toEqual(budget?.["metadata"])
    const address = served.simulator.system.get("services", "web", "web")?.["spec"] as { clusterIP?: string }
    // A strategic merge patch keeps what the server allocated and defaulted.
    ok(await kubectl(served, "patch", "service", "web", "-n", "web", "-p", '{"spec":{"ports":[{"name":"http","port":80,"targetPort":8080}]}}'))
    expect(served.simulator.system.get("services", "web", "web")).toMatchObject({ spec: { clusterIP: address.clusterIP, ports: [{ name: "http", port: 80, targetPort: 8080, protocol: "TCP" }] } })
    // A container changed by name keeps the rest of what it holds.
    expect(ok(await kubectl(served, "set", "image", "deployment/web", "web=registry.example/web:1.2.4", "-n", "web"))).toBe("deployment.apps/web image updated\n")
    const containers = (served.simulator.system.get("deployments", "web", "web")?.["spec"] as any).template.spec.containers
    expect(containers).toHaveLength(1)
    expect(containers[0]).toMatchObject({ name: "web", image: "registry.example/web:1.2.4", ports: [{ name: "http", containerPort: 8080, protocol: "TCP" }], readinessProbe: { httpGet: { path: "/readyz" } } })
  })
})
