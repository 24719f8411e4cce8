// OpenAPI v3 documents of our own making. kubectl reads them for two things: whether a kind accepts
// the fieldValidation parameter on PATCH (then it leaves validation to the server and skips its own),
// and whether PATCH takes strategic merge (ours do not, so `apply` sends merge patches); and `kubectl
// explain` reads each kind's schema, which comes from the field tree the simulator validates with.
import { createHash } from "node:crypto"
import type { Resource } from "../Api.ts"
import type { Kind } from "../kinds/Kind.ts"
import type { KindRegistry } from "../kinds/KindRegistry.ts"
import { objectMetaSchema, objectMetaSchemaName, quantitySchema, quantitySchemaName, schemaOf } from "./OpenApiSchema.ts"

const gvPath = (group: string, version: string): string => (group === "" ? `api/${version}` : `apis/${group}/${version}`)

/** The schema name of a kind: the reversed group, as Kubernetes names its definitions. */
export const schemaName = (group: string, version: string, kind: string): string =>
  group === "" ? `io.k8s.api.core.${version}.${kind}` : `${group.split(".").reverse().join(".")}.${version}.${kind}`

const openObject = { type: "object", "x-kubernetes-preserve-unknown-fields": true }

const typeMeta = {
  apiVersion: { type: "string", description: "The versioned schema of this representation of an object." },
  kind: { type: "string", description: "The REST resource this object represents." }
}

const metadata = { allOf: [{ $ref: `#/components/schemas/${objectMetaSchemaName}` }], description: "Standard object metadata." }

// A kind the simulator describes gets its field tree's schema; the others (pods, jobs, events) keep
// open spec and status, as the simulator stores them.
const objectProperties = (r: Kind): Record<string, unknown> => {
  const tree = r.fields
  if (tree !== "open") {
    const described = schemaOf(tree, r.descriptions)["properties"] as Record<string, Record<string, unknown>>
    const spec = described["spec"] === undefined ? {} : { spec: { description: `The desired state of the ${r.kind}.`, ...described["spec"] } }
    const status = described["status"] === undefined ? {} : { status: { description: `The observed state of the ${r.kind}, written by its controller.`, ...described["status"] } }
    return { ...described, ...typeMeta, metadata, ...spec, ...status }
  }
  return {
    ...typeMeta,
    metadata,
    spec: { ...openObject, description: `The desired state of the ${r.kind}.` },
    ...(r.hasStatus ? { status: { ...openObject, description: `The observed state of the ${r.kind}.` } } : {})
  }
}

const kindSchema = (r: Kind, version: string, kind: string, description: string): Record<string, unknown> => ({
  type: "object",
  description,
  properties:
    kind === r.listKind
      ? { ...typeMeta, metadata: { ...openObject, description: "Standard list metadata." }, items: { type: "array", items: { $ref: `#/components/schemas/${schemaName(r.group, version, r.kind)}` } } }
      : objectProperties(r),
  "x-kubernetes-group-version-kind": [{ group: r.group, version, kind }]
})

const queryParameter = (name: string, description: string): Record<string, unknown> => ({
  name,
  in: "query",
  description,
  schema: { type: "string", uniqueItems: true }
})

const jsonContent = (ref: string): Record<string, unknown> => ({ "application/json": { schema: { $ref: ref } } })

const operation = (
  r: Resource,
  version: string,
  action: string,
  summary: string,
  extra: Record<string, unknown>
): Record<string, unknown> => ({
  description: summary,
  operationId: `${action}${r.kind}`,
  "x-kubernetes-action": action,
  "x-kubernetes-group-version-kind": { group: r.group, version, kind: r.kind },
  ...extra
})

const resourcePaths = (r: Resource, version: string): Record<string, unknown> => {
  const base = `/${gvPath(r.group, version)}${r.namespaced ? "/namespaces/{namespace}" : ""}/${r.plural}`
  const objectRef = `#/components/schemas/${schemaName(r.group, version, r.kind)}`
  const listRef = `#/components/schemas/${schemaName(r.group, version, r.listKind)}`
  const ok = (ref: string) => ({ responses: { "200": { description: "OK", content: jsonContent(ref) } } })
  const writeParams = [
    queryParameter("dryRun", "When present, modifications are not persisted (value All)."),
    queryParameter("fieldManager", "The name of the actor making the change."),
    queryParameter("fieldValidation", "How the server treats unknown or duplicate fields: Ignore, Warn or Strict.")
  ]
  const pathParams = [
    ...(r.namespaced ? [{ name: "namespace", in: "path", required: true, schema: { type: "string" } }] : []),
    { name: "name", in: "path", required: true, schema: { type: "string" } }
  ]
  const patch = operation(r, version, "patch", `partially update the specified ${r.kind}`, {
    parameters: [...writeParams, queryParameter("force", "Force apply requests (server-side apply only).")],
    requestBody: {
      content: {
        "application/json-patch+json": { schema: { type: "array", items: { type: "object" } } },
        "application/merge-patch+json": { schema: openObject },
        "application/apply-patch+yaml": { schema: openObject }
      },
      required: true
    },
    ...ok(objectRef)
  })
  const update = operation(r, version, "put", `replace the specified ${r.kind}`, {
    parameters: writeParams,
    requestBody: { content: jsonContent(objectRef), required: true },
    ...ok(objectRef)
  })
  const get = operation(r, version, "get", `read the specified ${r.kind}`, ok(objectRef))
  return {
    [base]: {
      parameters: r.namespaced ? [pathParams[0]] : [],
      get: operation(r, version, "list", `list objects of kind ${r.kind}`, ok(listRef)),
      post: operation(r, version, "post", `create a ${r.kind}`, {
        parameters: writeParams,
        requestBody: { content: jsonContent(objectRef), required: true },
        ...ok(objectRef)
      })
    },
    [`${base}/{name}`]: {
      parameters: pathParams,
      get,
      put: update,
      patch,
      delete: operation(r, version, "delete", `delete a ${r.kind}`, {
        parameters: [writeParams[0], queryParameter("propagationPolicy", "Background, Foreground or Orphan.")],
        ...ok(objectRef)
      })
    },
    ...(r.hasStatus ? { [`${base}/{name}/status`]: { parameters: pathParams, get, put: update, patch } } : {})
  }
}

/** The OpenAPI v3 document of one group/version. */
export const groupVersionDocument = (kinds: KindRegistry, group: string, version: string): Record<string, unknown> => {
  const served = kinds.servedIn(group, version)
  return {
    openapi: "3.0.0",
    info: { title: "dispatch simulated cluster", version: `${group === "" ? "" : `${group}/`}${version}` },
    paths: Object.assign({}, ...served.map((r) => resourcePaths(r, version))),
    components: {
      schemas: Object.fromEntries([
        [objectMetaSchemaName, objectMetaSchema],
        [quantitySchemaName, quantitySchema],
        ...served.flatMap((r) => [
          [schemaName(r.group, version, r.kind), kindSchema(r, version, r.kind, `A ${r.kind} as the simulated cluster stores it.`)],
          [schemaName(r.group, version, r.listKind), kindSchema(r, version, r.listKind, `A list of ${r.kind} objects.`)]
        ])
      ])
    }
  }
}

const hashOf = (document: unknown): string => createHash("sha512").update(JSON.stringify(document)).digest("hex").toUpperCase()

/** The /openapi/v3 index: each group/version's document, addressed by a hash of its content. */
export const openApiRoot = (kinds: KindRegistry): Record<string, unknown> => ({
  paths: Object.fromEntries(
    kinds.groupVersions.map(({ group, version }) => {
      const path = gvPath(group, version)
      return [path, { serverRelativeURL: `/openapi/v3/${path}?hash=${hashOf(groupVersionDocument(kinds, group, version))}` }]
    })
  )
})
