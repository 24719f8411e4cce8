// core/v1 Service in the simulator: stored and read back, refused for an undeclared field, defaulted,
// given a cluster IP and node ports no other Service holds, and validated.
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import type { KubeObject } from "../src/Api.ts"
import { at, bareSimulator, call, created, invalidCauses } from "./SimFixture.ts"

const service = (name: string, spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "v1",
  kind: "Service",
  metadata: { name },
  spec: { selector: { app: name }, ports: [{ name: "http", port: 80, targetPort: "http" }], ...spec }
})

describe("Service", () => {
  it("is stored as sent, with type ClusterIP, a cluster IP from the service range and its defaults", () => {
    const sim = bareSimulator()
    const stored = created(sim, "services", service("web"))
    expect(call(sim, { verb: "get", ...at("services"), name: "web" }).body).toEqual(stored)
    const spec = stored["spec"] as Record<string, any>
    expect(spec).toMatchObject({
      type: "ClusterIP",
      sessionAffinity: "None",
      internalTrafficPolicy: "Cluster",
      ipFamilies: ["IPv4"],
      ipFamilyPolicy: "SingleStack",
      selector: { app: "web" },
      ports: [{ name: "http", port: 80, targetPort: "http", protocol: "TCP" }]
    })
    expect(spec.clusterIPs).toEqual([spec.clusterIP])
    const [a, b] = (spec.clusterIP as string).split(".").map(Number)
    expect(a).toBe(10)
    expect(b).toBeGreaterThanOrEqual(96)
    expect(b).toBeLessThanOrEqual(111)
    expect(stored["status"]).toEqual({ loadBalancer: {} })
    // A port with no target targets itself.
    expect((created(sim, "services", service("plain", { ports: [{ port: 8080 }] }))["spec"] as any).ports).toEqual([{ port: 8080, targetPort: 8080, protocol: "TCP" }])
  })

  it("keeps a cluster IP it was given, and None for a headless service", () => {
    const sim = bareSimulator()
    expect((created(sim, "services", service("fixed", { clusterIP: "10.96.5.5" }))["spec"] as any).clusterIP).toBe("10.96.5.5")
    expect((created(sim, "services", service("headless", { clusterIP: "None", ports: undefined }))["spec"] as any)).toMatchObject({ clusterIP: "None", clusterIPs: ["None"] })
    // An ExternalName service gets no address at all.
    const external = created(sim, "services", { apiVersion: "v1", kind: "Service", metadata: { name: "db" }, spec: { type: "ExternalName", externalName: "db.example.com" } })["spec"] as any
    expect(external.clusterIP).toBeUndefined()
    expect(external.internalTrafficPolicy).toBeUndefined()
  })

  test.prop([fc.integer({ min: 2, max: 12 })], { numRuns: 5 })("never hands out a cluster IP or node port twice", (count) => {
    const sim = bareSimulator()
    const specs = Array.from({ length: count }, (_, i) => created(sim, "services", service(`s${i}`, { type: "NodePort" }))["spec"] as any)
    expect(new Set(specs.map((s) => s.clusterIP)).size).toBe(count)
    const ports = specs.map((s) => s.ports[0].nodePort as number)
    expect(new Set(ports).size).toBe(count)
    for (const port of ports) expect(port >= 30000 && port <= 32767).toBe(true)
    expect(specs[0].externalTrafficPolicy).toBe("Cluster")
  })

  it("refuses an undeclared field as kube-apiserver does: a strict create, and any apply", () => {
    const sim = bareSimulator()
    const body = service("typo", { prots: [] })
    expect(call(sim, { verb: "create", ...at("services"), body, fieldValidation: "Strict" }).body).toMatchObject({
      code: 400,
      message: 'Service in version "v1" cannot be handled as a Service: strict decoding error: unknown field "spec.prots"'
    })
    const typoInPort = service("typo", { ports: [{ name: "http", port: 80, tragetPort: 8080 }] })
    const applied = call(sim, { verb: "patch", ...at("services"), name: "typo", patchType: "apply", fieldManager: "kubectl", body: typoInPort })
    expect(applied.code).toBe(500)
    expect((applied.body as any).message).toBe('failed to create typed patch object (/typo; /v1, Kind=Service): .spec.ports[port=80,protocol="TCP"].tragetPort: field not declared in schema')
  })

  it("validates the type and the ports", () => {
    const sim = bareSimulator()
    const causes = (body: KubeObject) => invalidCauses(sim, "services", body)
    expect(causes(service("a", { type: "Internal" }))).toEqual(['spec.type: Unsupported value: "Internal": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"'])
    expect(causes(service("a", { ports: [] }))).toEqual(["spec.ports: Required value"])
    expect(causes(service("a", { ports: [{ port: 0 }] }))).toEqual(["spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive"])
    expect(causes(service("a", { ports: [{ name: "a", port: 80 }, { port: 81 }] }))).toEqual(["spec.ports[1].name: Required value"])
  })
})
