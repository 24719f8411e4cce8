// Strategic merge patch on a built-in kind's schema: keyed lists merge item by item (a left-out key
// field taking its default), sets by value, other lists are replaced; kubectl's directives are followed.
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { strategicMerge } from "../src/apiserver/patches/StrategicMerge.ts"
import { mergePatch } from "../src/apiserver/patches/MergePatch.ts"
import { deploymentFields } from "../src/kinds/apps/deployment/DeploymentRules.ts"

const live = {
  spec: {
    replicas: 2,
    template: {
      spec: {
        containers: [
          { name: "a", image: "a:1", ports: [{ containerPort: 80, protocol: "TCP" }], args: ["x", "y"] },
          { name: "b", image: "b:1" }
        ],
        volumes: [{ name: "v", emptyDir: {} }]
      }
    }
  },
  metadata: { finalizers: ["f1"], labels: { app: "a", tier: "x" } }
}

describe("strategic merge patch", () => {
  it("merges containers by name and ports by containerPort and protocol, TCP when left out", () => {
    const out = strategicMerge(live, { spec: { template: { spec: { containers: [{ name: "a", image: "a:2", ports: [{ containerPort: 80, name: "http" }] }] } } } }, deploymentFields) as any
    expect(out.spec.template.spec.containers).toEqual([
      { name: "a", image: "a:2", ports: [{ containerPort: 80, protocol: "TCP", name: "http" }], args: ["x", "y"] },
      { name: "b", image: "b:1" }
    ])
    expect(out.spec.replicas).toBe(2)
    // A list with no merge key is replaced whole; a set takes the new values.
    const args = strategicMerge(live, { spec: { template: { spec: { containers: [{ name: "a", args: ["z"] }] } } }, metadata: { finalizers: ["f2"] } }, deploymentFields) as any
    expect(args.spec.template.spec.containers[0].args).toEqual(["z"])
    expect(args.metadata.finalizers).toEqual(["f1", "f2"])
  })

  it("follows $patch delete and replace, $retainKeys, $deleteFromPrimitiveList and $setElementOrder", () => {
    const patched = (patch: unknown) => strategicMerge(live, patch, deploymentFields) as any
    expect(patched({ spec: { template: { spec: { containers: [{ name: "a", $patch: "delete" }] } } } }).spec.template.spec.containers.map((c: any) => c.name)).toEqual(["b"])
    expect(patched({ spec: { template: { spec: { containers: [{ $patch: "replace" }, { name: "c", image: "c" }] } } } }).spec.template.spec.containers).toEqual([{ name: "c", image: "c" }])
    expect(patched({ spec: { template: { spec: { $patch: "replace", containers: [] } } } }).spec.template.spec).toEqual({ containers: [] })
    expect(patched({ spec: { template: { spec: { volumes: [{ name: "v", $retainKeys: ["name", "configMap"], configMap: { name: "c" } }] } } } }).spec.template.spec.volumes).toEqual([
      { name: "v", configMap: { name: "c" } }
    ])
    expect(patched({ metadata: { "$deleteFromPrimitiveList/finalizers": ["f1"] } }).metadata.finalizers).toEqual([])
    expect(patched({ spec: { template: { spec: { "$setElementOrder/containers": [{ name: "b" }, { name: "a" }] } } } }).spec.template.spec.containers.map((c: any) => c.name)).toEqual(["b", "a"])
    expect(patched({ metadata: { labels: { tier: null } } }).metadata.labels).toEqual({ app: "a" })
  })

  test.prop([fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer(), fc.constant(null))), fc.dictionary(fc.string(), fc.string())])(
    "is a merge patch where the patch holds no list and no directive",
    (patch, labels) => {
      const clean = Object.fromEntries(Object.entries(patch).filter(([k]) => !k.startsWith("$")))
      const target = { metadata: { labels }, spec: { replicas: 1 } }
      expect(strategicMerge(target, { metadata: { labels: clean } }, deploymentFields)).toEqual(mergePatch(target, { metadata: { labels: clean } }))
    }
  )
})
