// A built-in kind's schema read from its protobuf field tables: every field of every message it reaches
// is in it, under its JSON name, as a list, a map or a leaf of the right type; and the fields an apply
// configuration names that the schema does not declare are exactly the ones pruning drops.
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { type FieldTree, fields, listOf, mapOf, prune } from "../src/apiserver/validation/FieldTree.ts"
import { undeclaredFields, undeclaredMessage } from "../src/apiserver/managed/UndeclaredFields.ts"
import { kindMessageFields, messageFields } from "../src/kinds/MessageFields.ts"
import { Resources } from "../src/kinds/Builtin.ts"
import { podMessages } from "../src/kinds/core/pod/PodMessages.ts"
import { deploymentMessages } from "../src/kinds/apps/deployment/DeploymentMessages.ts"

const child = (tree: FieldTree | undefined, key: string): FieldTree | undefined => (typeof tree === "object" && "fields" in tree ? tree.fields[key] : undefined)

describe("a schema read from message tables", () => {
  it("gives each entry its JSON name, lists for repeated ones, maps for map ones, and inlines embedded messages", () => {
    const tables = {
      "x.v1.Top": "1:metadata:meta.v1.ObjectMeta:o 2:names:string:ro 3:limits:quantity:mo 4::x.v1.Inner:i 5:port:intOrString 6:self:x.v1.Top:op 7:when:time 8:ratio:double 9:other:x.v1.Missing",
      "x.v1.Inner": "1:count:int32 2:on:bool:op"
    }
    const tree = kindMessageFields(tables, "x.v1.Top")
    expect(child(tree, "apiVersion")).toBe("string")
    expect(child(tree, "names")).toEqual(listOf("string"))
    expect(child(tree, "limits")).toEqual(mapOf("quantity"))
    expect(child(tree, "count")).toBe("integer")
    expect(child(tree, "on")).toBe("boolean")
    expect(child(tree, "port")).toBe("int-or-string")
    expect(child(tree, "when")).toBe("string")
    expect(child(tree, "ratio")).toBe("number")
    // A message met again inside itself, and one no table describes, are left open.
    expect(child(tree, "self")).toBe("open")
    expect(child(tree, "other")).toBe("open")
  })

  it("covers every field of every message a Deployment reaches, the pod spec's included", () => {
    const tables = { ...podMessages, ...deploymentMessages }
    const tree = messageFields(tables, "apps.v1.Deployment")
    const pod = child(child(child(child(tree, "spec"), "template"), "spec"), "containers")
    const container = typeof pod === "object" && "items" in pod ? pod.items : undefined
    const names = (message: string) => (tables[message as keyof typeof tables] ?? "").split(" ").map((e) => e.split(":")[1] ?? "").filter((n) => n !== "")
    for (const name of names("core.v1.Container")) expect(child(container, name), name).toBeDefined()
    for (const name of names("apps.v1.DeploymentSpec")) expect(child(child(tree, "spec"), name), name).toBeDefined()
    for (const name of names("core.v1.PodSpec")) expect(child(child(child(child(tree, "spec"), "template"), "spec"), name), name).toBeDefined()
  })
})

// Values shaped by a small schema: declared fields, keyed list items and made-up fields here and there.
const schema = fields({
  spec: fields({
    replicas: "integer",
    ports: listOf(fields({ port: "integer", protocol: "string", name: "string" }), { type: "map", keys: ["port", "protocol"], defaults: { protocol: "TCP" } }),
    labels: mapOf("string"),
    template: fields({ image: "string", args: listOf("string") })
  })
})
const made = fc.constantFrom("replicass", "imagee", "prot", "x")
const port = fc.record({ port: fc.integer({ min: 1, max: 5 }), name: fc.constantFrom("a", "b"), extra: fc.option(made, { nil: undefined }) }).map(({ extra, ...p }) => (extra === undefined ? p : { ...p, [extra]: 1 }))
const value = fc.record(
  {
    spec: fc.record(
      { replicas: fc.nat(), ports: fc.uniqueArray(port, { selector: (p) => p.port, maxLength: 3 }), labels: fc.dictionary(fc.string({ maxLength: 3 }), fc.string()), template: fc.record({ image: fc.string() }, { requiredKeys: [] }), typo: fc.constant(1) },
      { requiredKeys: [] }
    )
  },
  { requiredKeys: [] }
)

describe("the undeclared fields of an apply configuration", () => {
  test.prop([value])("are named exactly when pruning finds some, each object's first", (v) => {
    const found = undeclaredFields(schema, v)
    const pruned = prune(schema, v).unknown
    expect(found.length > 0).toBe(pruned.length > 0)
    // Each named path is one pruning drops, in the typed conversion's notation.
    for (const path of found) expect(path.startsWith(".spec.")).toBe(true)
    expect(found.length).toBeLessThanOrEqual(pruned.length)
  })

  it("names keyed items by their keys, defaults included, and lists several under errors:", () => {
    const v = { spec: { ports: [{ port: 80, nam: "x" }], typo: 1, template: { imagee: "x" } } }
    const found = undeclaredFields(schema, v)
    expect(found).toEqual(['.spec.ports[port=80,protocol="TCP"].nam', ".spec.typo"])
    expect(undeclaredMessage(found)).toBe('errors:\n  .spec.ports[port=80,protocol="TCP"].nam: field not declared in schema\n  .spec.typo: field not declared in schema')
    expect(undeclaredMessage([".a"])).toBe(".a: field not declared in schema")
  })

  it("are none for any served built-in kind's own fields", () => {
    for (const kind of Resources.filter((k) => k.protobufMessage !== undefined)) expect(undeclaredFields(kind.fields, { apiVersion: "v1", kind: kind.kind, metadata: { name: "a" } }), kind.kind).toEqual([])
  })
})
