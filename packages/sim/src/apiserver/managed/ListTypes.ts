// How the served kinds' lists and maps merge, as their schemas say with x-kubernetes-list-type and
// x-kubernetes-list-map-keys (and core/v1's patch strategies): kept here by field name, which is how the
// schemas give most of them; a field tree may declare a list's own where one name merges two ways.
import type { FieldTree } from "../validation/FieldTree.ts"

/**
 * How a list's items are told apart: by key fields (a key field an item leaves out takes its schema
 * default, when it has one), by value, or not at all (the list is one value).
 */
export type ListType =
  | { readonly type: "map"; readonly keys: ReadonlyArray<string>; readonly defaults?: Readonly<Record<string, unknown>> }
  | { readonly type: "set" }
  | { readonly type: "atomic" }

const byName: ListType = { type: "map", keys: ["name"] }
const set: ListType = { type: "set" }
const atomic: ListType = { type: "atomic" }

// Lists keyed or treated as sets in ObjectMeta, core/v1, batch/v1, JobSet's, Trainer's and Kueue's schemas.
const listTypes: Readonly<Record<string, ListType>> = {
  finalizers: set,
  ownerReferences: { type: "map", keys: ["uid"] },
  conditions: { type: "map", keys: ["type"] },
  containers: byName,
  initContainers: byName,
  ephemeralContainers: byName,
  containerStatuses: byName,
  initContainerStatuses: byName,
  env: byName,
  volumes: byName,
  volumeMounts: { type: "map", keys: ["mountPath"] },
  volumeDevices: { type: "map", keys: ["devicePath"] },
  ports: { type: "map", keys: ["containerPort", "protocol"], defaults: { protocol: "TCP" } },
  imagePullSecrets: byName,
  hostAliases: { type: "map", keys: ["ip"] },
  replicatedJobs: byName,
  replicatedJobsStatus: byName,
  jobsStatus: byName,
  runtimePatches: { type: "map", keys: ["manager"] },
  podSets: byName,
  podSetAssignments: byName,
  admissionChecks: byName,
  resourceRequests: byName,
  reclaimablePods: byName,
  resourceGroups: atomic,
  flavors: byName,
  flavorsReservation: byName,
  flavorsUsage: byName,
  resources: byName,
  metrics: byName,
  targets: atomic,
  podIPs: { type: "map", keys: ["ip"] }
}

/**
 * The list type of a list held under `field` whose schema is `tree`: the tree's own when it declares one
 * (a Service's ports are keyed by port, a container's by containerPort), else by the field's name (atomic
 * unless a schema says otherwise).
 */
export const listTypeOf = (field: string, tree?: FieldTree): ListType =>
  (typeof tree === "object" && "items" in tree ? tree.listType : undefined) ?? listTypes[field] ?? atomic

// Objects under these names are maps (string keys to values), not structs: the map itself is owned
// along with its keys, as FieldsV1's "." under them records.
const mapFields = new Set(["labels", "annotations", "nodeSelector", "limits", "requests", "data", "stringData", "capacity", "allocatable", "flavors", "resourceUsage"])

/** True when an object held under `field` in a part the field trees leave open is a map rather than a struct. */
export const isMapField = (field: string): boolean => mapFields.has(field)
