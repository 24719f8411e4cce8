// A kind's OpenAPI v3 schema, derived from the same field tree the API server prunes and type-checks
// writes with, so what `kubectl explain` shows is what a write may carry. Metadata refers to one
// ObjectMeta schema and quantities to one Quantity schema, as the real server's documents do.
import type { FieldTree } from "../apiserver/validation/FieldTree.ts"
import { quantityPattern } from "../apiserver/validation/FieldTree.ts"

/** The schema name of meta/v1 ObjectMeta in every document. */
export const objectMetaSchemaName = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"

const ref = (name: string): Record<string, unknown> => ({ $ref: `#/components/schemas/${name}` })

const text = (description: string): Record<string, unknown> => ({ type: "string", description })
const stringMap = (description: string): Record<string, unknown> => ({ type: "object", additionalProperties: { type: "string" }, description })

/** The schema name of a resource quantity in every document. */
export const quantitySchemaName = "io.k8s.apimachinery.pkg.api.resource.Quantity"

/** A resource quantity: an integer, or a string of Kubernetes' quantity form. */
export const quantitySchema: Record<string, unknown> = {
  anyOf: [{ type: "integer" }, { type: "string" }],
  pattern: quantityPattern.source,
  "x-kubernetes-int-or-string": true,
  description: "A resource quantity: an integer, or a string such as 500m, 1.5Gi or 2e3."
}

/** meta/v1 ObjectMeta, the metadata every kind carries. */
export const objectMetaSchema: Record<string, unknown> = {
  type: "object",
  description: "Standard object metadata: name, namespace, labels, annotations and what the server records.",
  properties: {
    annotations: stringMap("Unstructured key/value data kept with the object."),
    creationTimestamp: { type: "string", format: "date-time", description: "When the server created the object." },
    deletionGracePeriodSeconds: { type: "integer", format: "int64", description: "Seconds allowed for graceful termination once deletion was asked." },
    deletionTimestamp: { type: "string", format: "date-time", description: "When deletion was asked; the object goes once its finalizers are removed." },
    finalizers: { type: "array", items: { type: "string" }, description: "What must be done before the object is removed." },
    generateName: text("A prefix the server completes into a unique name when no name is given."),
    generation: { type: "integer", format: "int64", description: "A sequence number of changes to the desired state." },
    labels: stringMap("Key/value pairs for selecting the object."),
    managedFields: { type: "array", items: { type: "object", "x-kubernetes-preserve-unknown-fields": true }, description: "Which manager set which fields." },
    name: text("The object's name, unique within its namespace (or the cluster)."),
    namespace: text("The namespace of a namespaced object."),
    ownerReferences: {
      type: "array",
      description: "The objects this one depends on; the garbage collector removes it when they are gone.",
      items: {
        type: "object",
        required: ["apiVersion", "kind", "name", "uid"],
        properties: {
          apiVersion: text("The owner's API version."),
          blockOwnerDeletion: { type: "boolean", description: "Foreground deletion of the owner waits for this object." },
          controller: { type: "boolean", description: "The owner is the managing controller." },
          kind: text("The owner's kind."),
          name: text("The owner's name."),
          uid: text("The owner's uid.")
        }
      }
    },
    resourceVersion: text("The version of the object the server last stored; a write that names a stale one conflicts."),
    selfLink: text("Deprecated; never set."),
    uid: text("The object's unique id, never reused.")
  }
}

const describedAs = (descriptions: Readonly<Record<string, string>>, path: string): Record<string, unknown> =>
  Object.hasOwn(descriptions, path) ? { description: descriptions[path] } : {}

const childPath = (path: string, key: string): string => (path === "" ? key : `${path}.${key}`)

/**
 * The OpenAPI v3 schema a field tree describes, with the descriptions given by path (list items add no
 * segment). `metadata` at the top refers to ObjectMeta.
 */
export const schemaOf = (tree: FieldTree, descriptions: Readonly<Record<string, string>> = {}, path = ""): Record<string, unknown> => {
  const described = describedAs(descriptions, path)
  switch (tree) {
    case "string":
      return { type: "string", ...described }
    case "integer":
      return { type: "integer", format: "int64", ...described }
    case "number":
      return { type: "number", format: "double", ...described }
    case "int-or-string":
      return { type: "string", format: "int-or-string", "x-kubernetes-int-or-string": true, ...described }
    case "boolean":
      return { type: "boolean", ...described }
    case "quantity":
      return { allOf: [ref(quantitySchemaName)], ...described }
    case "any":
      return described
    case "open":
      return { type: "object", "x-kubernetes-preserve-unknown-fields": true, ...described }
  }
  if ("items" in tree) {
    const listType = tree.listType === undefined ? {} : { "x-kubernetes-list-type": tree.listType.type, ...(tree.listType.type === "map" ? { "x-kubernetes-list-map-keys": tree.listType.keys } : {}) }
    return { type: "array", items: schemaOf(tree.items, descriptions, path), ...listType, ...described }
  }
  if ("values" in tree) return { type: "object", additionalProperties: schemaOf(tree.values, {}, ""), ...described }
  const properties = Object.fromEntries(
    Object.keys(tree.fields)
      .sort()
      .map((key) => [
        key,
        path === "" && key === "metadata"
          ? { allOf: [ref(objectMetaSchemaName)], description: "Standard object metadata." }
          : schemaOf(tree.fields[key] as FieldTree, descriptions, childPath(path, key))
      ])
  )
  return { type: "object", properties, ...described }
}
