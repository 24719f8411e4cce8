// The meta/v1 and core/v1 shapes the CRDs embed, described once for every kind: object metadata, the
// trimmed metadata of embedded templates, conditions, env vars, resource requirements and pod
// templates (whose spec is left open: the simulator does not describe core/v1's pod spec).
import { type FieldTree, fields, listOf, mapOf } from "../../apiserver/validation/FieldTree.ts"

/** ObjectMeta: its own rules (ObjectMetaRules) check its values, so only its shape is described. */
export const objectMeta: FieldTree = fields({
  name: "any",
  generateName: "any",
  namespace: "any",
  selfLink: "any",
  uid: "any",
  resourceVersion: "any",
  generation: "any",
  creationTimestamp: "any",
  deletionTimestamp: "any",
  deletionGracePeriodSeconds: "any",
  labels: mapOf("any"),
  annotations: mapOf("any"),
  ownerReferences: listOf(fields({ apiVersion: "any", kind: "any", name: "any", uid: "any", controller: "any", blockOwnerDeletion: "any" })),
  finalizers: "any",
  managedFields: "open"
})

/** The metadata a CRD keeps on an embedded template. */
export const embeddedMeta: FieldTree = fields({
  annotations: mapOf("string"),
  finalizers: listOf("string"),
  labels: mapOf("string"),
  name: "string",
  namespace: "string"
})

/** A metav1.Condition. */
export const condition: FieldTree = fields({
  lastTransitionTime: "string",
  message: "string",
  observedGeneration: "integer",
  reason: "string",
  status: "string",
  type: "string"
})

/** A core/v1 EnvVar (its valueFrom source left open). */
export const envVar: FieldTree = fields({ name: "string", value: "string", valueFrom: "open" })

/** core/v1 ResourceRequirements: quantities by resource name. */
export const resourceRequirements: FieldTree = fields({ claims: listOf("open"), limits: mapOf("quantity"), requests: mapOf("quantity") })

/** A core/v1 PodTemplateSpec; its spec is open. */
export const podTemplate: FieldTree = fields({ metadata: embeddedMeta, spec: "open" })

/** A kind's top level: apiVersion, kind, metadata, and the spec and status given (absent: not in the schema). */
export const kindFields = (parts: { readonly spec?: FieldTree; readonly status?: FieldTree }): FieldTree =>
  fields({
    apiVersion: "string",
    kind: "string",
    metadata: objectMeta,
    ...(parts.spec === undefined ? {} : { spec: parts.spec }),
    ...(parts.status === undefined ? {} : { status: parts.status })
  })
