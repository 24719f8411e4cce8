import { describe, expect, it } from "vitest"
import { at, bareSimulator, call, status, trainJob } from "./SimFixture.ts"

const sim = () => bareSimulator({ auth: { tokens: { "admin-token": "*", "reader-token": ["get", "list", "watch"] } } })

describe("auth", () => {
  it("answers 401 without a known token", () => {
    const s = sim()
    expect(call(s, { verb: "list", ...at("trainjobs") })).toEqual({
      code: 401,
      body: { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "Unauthorized", reason: "Unauthorized", code: 401 }
    })
    expect(call(s, { verb: "list", ...at("trainjobs"), token: "guess" }).code).toBe(401)
  })

  it("answers 403 Forbidden for a verb the token may not use, worded like the real server", () => {
    const s = sim()
    const denied = call(s, { verb: "create", ...at("trainjobs"), token: "reader-token", body: trainJob("x") })
    expect(denied.code).toBe(403)
    expect(status(denied)).toMatchObject({
      reason: "Forbidden",
      message: 'trainjobs.trainer.kubeflow.org is forbidden: User "sim-user-2" cannot create resource "trainjobs" in API group "trainer.kubeflow.org" in the namespace "default"',
      details: { group: "trainer.kubeflow.org", kind: "trainjobs" }
    })
    const named = call(s, { verb: "delete", ...at("trainjobs"), name: "x", token: "reader-token" })
    expect(status(named)["message"]).toBe('trainjobs.trainer.kubeflow.org "x" is forbidden: User "sim-user-2" cannot delete resource "trainjobs" in API group "trainer.kubeflow.org" in the namespace "default"')
    const cluster = call(s, { verb: "patch", ...at("namespaces"), name: "default", token: "reader-token", patchType: "merge", body: {} })
    expect(status(cluster)["message"]).toBe('namespaces "default" is forbidden: User "sim-user-2" cannot patch resource "namespaces" in API group "" at the cluster scope')
  })

  it("lets allowed verbs through", () => {
    const s = sim()
    expect(call(s, { verb: "list", ...at("trainjobs"), token: "reader-token" }).code).toBe(200)
    expect(call(s, { verb: "create", ...at("trainjobs"), token: "admin-token", body: trainJob("x") }).code).toBe(201)
    expect(call(s, { verb: "get", ...at("trainjobs"), name: "x", token: "reader-token" }).code).toBe(200)
  })

  it("checks watches too, and lets the system client through without a token", () => {
    const s = sim()
    expect(s.system.create("trainjobs", { ...trainJob("sys"), metadata: { name: "sys", namespace: "default" } }).code).toBe(201)
    expect(s.watch({ verb: "watch", ...at("trainjobs") }, () => {}).outcome).toMatchObject({ response: { code: 401 } })
  })
})
