// core/v1 PersistentVolumeClaim in the simulator: stored and read back, Pending (no volume is ever
// bound), volume mode Filesystem unless given, refused for an undeclared field, and validated.
import { describe, expect, it } from "vitest"
import type { KubeObject } from "../src/Api.ts"
import { at, bareSimulator, call, created, invalidCauses } from "./SimFixture.ts"

const claim = (name: string, spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "v1",
  kind: "PersistentVolumeClaim",
  metadata: { name },
  spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } }, ...spec }
})

describe("PersistentVolumeClaim", () => {
  it("is stored as sent with volume mode Filesystem, and stays Pending whatever status was sent", () => {
    const sim = bareSimulator()
    const stored = created(sim, "persistentvolumeclaims", { ...claim("data", { storageClassName: "fast" }), status: { phase: "Bound" } })
    expect(stored).toMatchObject({ spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } }, storageClassName: "fast", volumeMode: "Filesystem" }, status: { phase: "Pending" } })
    expect(call(sim, { verb: "get", ...at("persistentvolumeclaims"), name: "data" }).body).toEqual(stored)
    expect((created(sim, "persistentvolumeclaims", claim("block", { volumeMode: "Block" }))["spec"] as any).volumeMode).toBe("Block")
  })

  it("refuses an undeclared field, no access mode or an unknown one, and no storage request", () => {
    const sim = bareSimulator()
    expect(call(sim, { verb: "create", ...at("persistentvolumeclaims"), body: claim("a", { storageClass: "fast" }), fieldValidation: "Strict" }).body).toMatchObject({
      message: 'PersistentVolumeClaim in version "v1" cannot be handled as a PersistentVolumeClaim: strict decoding error: unknown field "spec.storageClass"'
    })
    const causes = (body: KubeObject) => invalidCauses(sim, "persistentvolumeclaims", body)
    expect(causes(claim("a", { accessModes: [], resources: {} }))).toEqual(["spec.accessModes: Required value: at least 1 access mode is required", "spec.resources[storage]: Required value"])
    expect(causes(claim("a", { accessModes: ["ReadWriteSometimes"] }))).toEqual([
      'spec.accessModes: Unsupported value: "ReadWriteSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"'
    ])
  })
})
