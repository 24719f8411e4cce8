// The fields of Kueue's LocalQueue CRD (kueue.x-k8s.io), the union of v1beta1's and v1beta2's fields.
import { kindFields } from "../../core/CoreFields.ts"
import { type FieldTree, fields, listOf } from "../../../apiserver/validation/FieldTree.ts"
import { fairSharing, flavorUsage, queueCounts } from "../QueueParts.ts"

/** A LocalQueue: the namespaced name a job is queued under, pointing at its ClusterQueue. */
export const localQueueFields: FieldTree = kindFields({
  spec: fields({ clusterQueue: "string", fairSharing, stopPolicy: "string" }),
  status: fields({ ...queueCounts, flavorUsage: flavorUsage, flavors: listOf("open") })
})
