// Each kind's OpenAPI v3 schema comes from the field tree its writes are pruned and checked with: read
// back into a tree, every served document's schema gives that same tree.
import { describe, expect, it } from "vitest"
import { Resources } from "../src/kinds/Builtin.ts"
import type { FieldTree } from "../src/apiserver/validation/FieldTree.ts"
import { groupVersionDocument, schemaName } from "../src/http/OpenApi.ts"
import { objectMetaSchemaName, quantitySchemaName } from "../src/http/OpenApiSchema.ts"
import { objectMeta } from "../src/kinds/core/CoreFields.ts"
import { builtin, descriptionsOf, fieldsOf } from "./BuiltinKinds.ts"

type Schema = Record<string, unknown>

// The tree a schema describes (the inverse of schemaOf); ObjectMeta stands for the metadata tree.
const treeOf = (schema: Schema): FieldTree => {
  const only = Array.isArray(schema["allOf"]) ? ((schema["allOf"] as Array<Schema>)[0]?.["$ref"] as string | undefined) : undefined
  if (only === `#/components/schemas/${objectMetaSchemaName}`) return objectMeta
  if (only === `#/components/schemas/${quantitySchemaName}`) return "quantity"
  if (schema["x-kubernetes-preserve-unknown-fields"] === true) return "open"
  switch (schema["type"]) {
    case "string":
      return schema["x-kubernetes-int-or-string"] === true ? "int-or-string" : "string"
    case "integer":
      return "integer"
    case "number":
      return "number"
    case "boolean":
      return "boolean"
    case "array": {
      const type = schema["x-kubernetes-list-type"] as "map" | "set" | "atomic" | undefined
      const items = treeOf(schema["items"] as Schema)
      if (type === undefined) return { items }
      return { items, listType: type === "map" ? { type, keys: schema["x-kubernetes-list-map-keys"] as ReadonlyArray<string> } : { type } }
    }
    case "object":
      if (schema["additionalProperties"] !== undefined) return { values: treeOf(schema["additionalProperties"] as Schema) }
      return { fields: Object.fromEntries(Object.entries((schema["properties"] ?? {}) as Record<string, Schema>).map(([k, v]) => [k, treeOf(v)])) }
    default:
      return "any"
  }
}

const sorted = (tree: FieldTree): unknown =>
  typeof tree === "string"
    ? tree
    : "fields" in tree
      ? Object.fromEntries(Object.keys(tree.fields).sort().map((k) => [k, sorted(tree.fields[k] as FieldTree)]))
      : "items" in tree
        ? // A list's own list type, without the key defaults the schema does not carry.
          tree.listType === undefined
          ? { items: sorted(tree.items) }
          : { items: sorted(tree.items), listType: tree.listType.type === "map" ? { type: "map", keys: tree.listType.keys } : tree.listType }
        : { values: sorted(tree.values) }

describe("OpenAPI schemas", () => {
  const described = Resources.filter((r) => fieldsOf(r.plural) !== "open")

  it.each(described.flatMap((r) => r.versions.map((v) => [`${r.kind} ${v}`, r, v] as const)))("describe %s by its field tree", (_name, r, version) => {
    const doc = groupVersionDocument(builtin, r.group, version) as { components: { schemas: Record<string, Schema> } }
    const schema = doc.components.schemas[schemaName(r.group, version, r.kind)] as Schema
    expect(sorted(treeOf(schema))).toEqual(sorted(fieldsOf(r.plural)))
  })

  it("describe only fields the trees have", () => {
    // Every path of a tree, list items adding no segment.
    const paths = (tree: FieldTree, path: string): ReadonlyArray<string> =>
      typeof tree === "string" || "values" in tree
        ? [path]
        : "items" in tree
          ? paths(tree.items, path)
          : [path, ...Object.entries(tree.fields).flatMap(([k, t]) => paths(t, path === "" ? k : `${path}.${k}`))]
    for (const r of described) {
      const known = new Set(paths(fieldsOf(r.plural), ""))
      expect(Object.keys(descriptionsOf(r.plural)).filter((p) => !known.has(p)), r.plural).toEqual([])
    }
    const doc = groupVersionDocument(builtin, "trainer.kubeflow.org", "v1alpha1") as { components: { schemas: Record<string, Schema> } }
    const trainJob = doc.components.schemas["org.kubeflow.trainer.v1alpha1.TrainJob"] as { properties: { spec: { properties: { trainer: Schema } } } }
    expect(trainJob.properties.spec.properties.trainer["description"]).toBe(descriptionsOf("trainjobs")["spec.trainer"])
  })

  it("describe every kind kubectl explain is asked about", () => {
    expect(described.map((r) => r.plural).sort()).toEqual(
      [
        "admissionchecks",
        "clustertrainingruntimes",
        "configmaps",
        "clusterqueues",
        "deployments",
        "jobsets",
        "localqueues",
        "namespaces",
        "persistentvolumeclaims",
        "poddisruptionbudgets",
        "secrets",
        "serviceaccounts",
        "services",
        "trainingruntimes",
        "trainjobs",
        "workloads"
      ].sort()
    )
  })
})
