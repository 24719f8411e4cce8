import { test as propTest, fc } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { Resources } from "../src/kinds/Builtin.ts"
import { groupOf, versionOf } from "../src/apiserver/ResourceNames.ts"
import { KindRegistry } from "../src/kinds/KindRegistry.ts"

const registry = new KindRegistry(Resources)
const resourceByKind = (apiVersion: string, kind: string) => registry.byKind(apiVersion, kind)
const resourceByPlural = (plural: string) => registry.byResource(plural)

// The lookups as scans of the table and splits of the string: what the maps and index arithmetic must agree with.
const scanGroup = (apiVersion: string): string => (apiVersion.includes("/") ? (apiVersion.split("/")[0] ?? "") : "")
const scanVersion = (apiVersion: string): string => apiVersion.split("/").pop() ?? ""

const known = [...Resources.map((r) => r.kind), ...Resources.map((r) => r.plural), ...Resources.map((r) => r.group)]
const piece = fc.oneof(fc.constantFrom(...known, "", "v1", "v1beta2", "Job/batch"), fc.string({ maxLength: 6 }))
const apiVersion = fc.oneof(piece, fc.tuple(piece, piece).map(([a, b]) => `${a}/${b}`), fc.tuple(piece, piece, piece).map((p) => p.join("/")))

describe("the kind registry's lookups", () => {
  propTest.prop([apiVersion])("split an apiVersion as a split on its slashes does", (text) => {
    expect(groupOf(text)).toBe(scanGroup(text))
    expect(versionOf(text)).toBe(scanVersion(text))
  })

  propTest.prop([apiVersion, piece])("find the resource a scan of the table finds, by kind and apiVersion or by plural", (text, name) => {
    expect(resourceByKind(text, name)).toBe(Resources.find((r) => r.kind === name && r.group === scanGroup(text)))
    expect(resourceByPlural(name)).toBe(Resources.find((r) => r.plural === name))
  })

  it("find every served resource, and nothing for a kind that only spells a served one's key", () => {
    for (const r of Resources) {
      expect(resourceByPlural(r.plural)).toBe(r)
      expect(resourceByKind(r.group === "" ? "v1" : `${r.group}/v1`, r.kind)).toBe(r)
    }
    expect(resourceByKind("v1", "Job/batch")).toBeUndefined()
    expect(resourceByKind("batch/v1", "Namespace")).toBeUndefined()
    expect(resourceByPlural("constructor")).toBeUndefined()
  })
})
