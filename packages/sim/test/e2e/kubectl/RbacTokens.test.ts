// Service account tokens: `kubectl create token` asks the TokenRequest API, and the token it prints
// authenticates as the service account, with exactly what RBAC grants it, until it expires on the
// simulator's clock or the account is deleted.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Served, serve } from "../../HttpFixture.ts"
import { kubectl, ok } from "./KubectlFixture.ts"
import { role, roleBinding, subject } from "../../RbacObjects.ts"


describe("service account tokens", () => {
  let served: Served
  const as = (token: string, path: string, init: RequestInit = {}) =>
    fetch(`${served.server.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...(init.headers ?? {}) } })
  beforeAll(async () => {
    served = await serve({
      rbac: {},
      objects: [
        { apiVersion: "v1", kind: "Namespace", metadata: { name: "ml" } },
        { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "dispatch", namespace: "ml" } },
        role("ml", "cm-editor", [{ verbs: ["get", "list", "create"], apiGroups: [""], resources: ["configmaps"] }]),
        roleBinding("ml", "dispatch", "Role", "cm-editor", [subject("ServiceAccount", "dispatch")])
      ]
    })
    expect(served.simulator.rejectedSeeds).toEqual([])
  })
  afterAll(() => served.close())

  it("issues a token that acts as the service account, in its namespace only", async () => {
    const token = ok(await kubectl(served, "create", "token", "dispatch", "-n", "ml")).trim()
    expect(token).toMatch(/^sim-sa\.\S+$/)
    expect((await as(token, "/api/v1/namespaces/ml/configmaps")).status).toBe(200)
    const created = await as(token, "/api/v1/namespaces/ml/configmaps", { method: "POST", body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "made" } }) })
    expect(created.status).toBe(201)
    expect(served.simulator.system.get("configmaps", "ml", "made")).toBeDefined()
    const elsewhere = await as(token, "/api/v1/namespaces/default/configmaps")
    expect([elsewhere.status, ((await elsewhere.json()) as { message: string }).message]).toEqual([
      403,
      'configmaps is forbidden: User "system:serviceaccount:ml:dispatch" cannot list resource "configmaps" in API group "" in the namespace "default"'
    ])
    const deleting = await as(token, "/api/v1/namespaces/ml/configmaps/made", { method: "DELETE" })
    expect(deleting.status).toBe(403)
    expect((await as("sim-sa.forged", "/api/v1/namespaces/ml/configmaps")).status).toBe(401)
  })

  it("refuses a token request for a missing account, a short life, or a caller without create serviceaccounts/token", async () => {
    const missing = await kubectl(served, "create", "token", "nobody", "-n", "ml")
    expect(missing.stderr).toContain('serviceaccounts "nobody" not found')
    const short = await kubectl(served, "create", "token", "dispatch", "-n", "ml", "--duration=5m")
    expect(short.stderr).toContain("may not specify a duration less than 10 minutes")
    const token = ok(await kubectl(served, "create", "token", "dispatch", "-n", "ml")).trim()
    const itself = await as(token, "/api/v1/namespaces/ml/serviceaccounts/dispatch/token", { method: "POST", body: JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: {} }) })
    expect([itself.status, ((await itself.json()) as { message: string }).message]).toEqual([
      403,
      'serviceaccounts "dispatch" is forbidden: User "system:serviceaccount:ml:dispatch" cannot create resource "serviceaccounts/token" in API group "" in the namespace "ml"'
    ])
  })

  it("ends a token at its expiry on the simulator's clock, and with its account", async () => {
    const token = ok(await kubectl(served, "create", "token", "dispatch", "-n", "ml", "--duration=10m")).trim()
    expect((await as(token, "/api/v1/namespaces/ml/configmaps")).status).toBe(200)
    served.simulator.advance(10 * 60 * 1000)
    expect((await as(token, "/api/v1/namespaces/ml/configmaps")).status).toBe(401)
    const lasting = ok(await kubectl(served, "create", "token", "dispatch", "-n", "ml")).trim()
    expect(ok(await kubectl(served, "delete", "sa", "dispatch", "-n", "ml"))).toBe('serviceaccount "dispatch" deleted\n')
    ok(await kubectl(served, "create", "sa", "dispatch", "-n", "ml"))
    // A new account of the same name is another account: the old token does not name it.
    expect((await as(lasting, "/api/v1/namespaces/ml/configmaps")).status).toBe(401)
  })
})
