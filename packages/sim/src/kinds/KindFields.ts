// The field tree of every served resource, by plural: Trainer's, JobSet's and Kueue's CRDs, and the
// Namespace and ConfigMap (built-ins, whose typed decoding drops unknown fields the same way). One tree gives both
// pruning and validation on writes and the OpenAPI schema `kubectl explain` reads.
import { configMapFields } from "./core/ConfigMapRules.ts"
import { kindFields } from "./core/CoreFields.ts"
import { type FieldTree, fields, listOf } from "../apiserver/validation/FieldTree.ts"
import { jobSetFields } from "./jobset/JobSetFields.ts"
import { admissionCheckFields, workloadFields } from "./kueue/KueueFields.ts"
import { clusterQueueFields, localQueueFields } from "./kueue/QueueFields.ts"
import { trainingRuntimeFields, trainJobFields } from "./trainer/TrainerFields.ts"

const namespaceFields = kindFields({
  spec: fields({ finalizers: listOf("string") }),
  status: fields({ phase: "string", conditions: listOf("open") })
})

const byPlural: Readonly<Record<string, FieldTree>> = {
  trainjobs: trainJobFields,
  trainingruntimes: trainingRuntimeFields,
  clustertrainingruntimes: trainingRuntimeFields,
  workloads: workloadFields,
  admissionchecks: admissionCheckFields,
  localqueues: localQueueFields,
  clusterqueues: clusterQueueFields,
  jobsets: jobSetFields,
  namespaces: namespaceFields,
  configmaps: configMapFields
}

/** The fields a resource's schema defines; a resource the table does not know keeps everything. */
export const fieldsOf = (plural: string): FieldTree => byPlural[plural] ?? "open"
