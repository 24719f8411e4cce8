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

// Registries of any selection and order of kinds, including two that share a plural and a kind name
// (the first registered must win), against scans of their list; asked mostly about names a kind of
// the pool has, so that lookups find something as often as not.
const twin = { ...Resources[0]!, group: "example.com", versions: ["v2", "v1alpha1"], protobuf: { "core.v1.Pod": "1:twin:string" } }
const pool = [...Resources, twin]
const selection = fc.shuffledSubarray(pool).map((kinds) => new KindRegistry(kinds))
const other = fc.constantFrom("", "v1", "x")
// A kind's group, one of its versions, its plural, its kind name and one of its messages, each now and
// then replaced by a name no kind has.
const query = fc
  .tuple(fc.constantFrom(...pool), fc.nat(), fc.nat())
  .chain(([k, v, m]) => {
    const messages = Object.keys(k.protobuf)
    const named = (name: string) => fc.oneof({ weight: 4, arbitrary: fc.constant(name) }, { weight: 1, arbitrary: other })
    return fc.record({
      group: named(k.group),
      version: named(k.versions[v % k.versions.length] ?? ""),
      plural: named(k.plural),
      kind: named(k.kind),
      message: named(messages.length === 0 ? "x" : (messages[m % messages.length] ?? ""))
    })
  })

describe("a kind registry of any kinds", () => {
  propTest.prop([selection, query])("finds what a scan of its kinds in order finds", (registry, q) => {
    const kinds = registry.kinds
    expect(registry.byResource(q.plural)).toBe(kinds.find((k) => k.plural === q.plural))
    expect(registry.byKindName(q.kind)).toBe(kinds.find((k) => k.kind === q.kind))
    expect(registry.byKind(q.group === "" ? q.version : `${q.group}/${q.version}`, q.kind)).toBe(kinds.find((k) => k.kind === q.kind && k.group === q.group))
    expect(registry.servedAt(q.group, q.version, q.plural)).toBe(kinds.find((k) => k.group === q.group && k.versions.includes(q.version) && k.plural === q.plural))
    expect(registry.servedIn(q.group, q.version)).toEqual(kinds.filter((k) => k.group === q.group && k.versions.includes(q.version)))
    expect(registry.servesGroupVersion(q.group, q.version)).toBe(kinds.some((k) => k.group === q.group && k.versions.includes(q.version)))
    expect(registry.servesGroupVersion(q.group, "")).toBe(false)
    expect(registry.protobufMessage(q.message)).toBe(kinds.find((k) => Object.hasOwn(k.protobuf, q.message))?.protobuf[q.message])
  })

  it("lets the first of the kinds sharing a plural, a kind name, a served path or a message win", () => {
    // A second twin: at the twin's group, versions and plural, with its own text for the same message.
    const other = { ...twin, kind: "Other", protobuf: { "core.v1.Pod": "1:other:string" } }
    for (const kinds of [[Resources[0]!, twin, other], [twin, other, Resources[0]!], [other, Resources[0]!, twin]]) {
      const registry = new KindRegistry(kinds)
      const twins = kinds.filter((k) => k.group === "example.com")
      expect(registry.byResource("trainjobs")).toBe(kinds[0])
      expect(registry.byKindName("TrainJob")).toBe(kinds.find((k) => k.kind === "TrainJob"))
      expect(registry.protobufMessage("core.v1.Pod")).toBe(twins[0]?.protobuf["core.v1.Pod"])
      expect(registry.servedIn("example.com", "v2")).toEqual(twins)
      expect(registry.servedAt("example.com", "v1alpha1", "trainjobs")).toBe(twins[0])
    }
  })

  propTest.prop([selection])("lists each served group/version once, core first, then in registration order", (registry) => {
    const pairs = registry.kinds.flatMap((k) => k.versions.map((version) => ({ group: k.group, version })))
    const once = pairs.filter((p, i) => pairs.findIndex((q) => q.group === p.group && q.version === p.version) === i)
    expect(registry.groupVersions).toEqual([...once.filter((p) => p.group === ""), ...once.filter((p) => p.group !== "")])
  })
})
