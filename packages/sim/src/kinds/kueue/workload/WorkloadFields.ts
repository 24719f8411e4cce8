// The fields of Kueue's Workload CRD (kueue.x-k8s.io). The simulator stores one form for both served
// versions, so the tree is the union of v1beta1's and v1beta2's fields. Pod
// templates, tolerations and topology assignments are left open.
import { condition, kindFields, podTemplate } from "../../core/CoreFields.ts"
import { type FieldTree, fields, listOf, mapOf } from "../../../apiserver/validation/FieldTree.ts"

const topologyRequest = fields({
  podIndexLabel: "string",
  podSetGroupName: "string",
  podSetSliceRequiredTopology: "string",
  podSetSliceSize: "integer",
  podsetSliceRequiredTopologyConstraints: listOf("open"),
  preferred: "string",
  required: "string",
  subGroupCount: "integer",
  subGroupIndexLabel: "string",
  unconstrained: "boolean"
})

const podSetUpdate = fields({
  annotations: mapOf("string"),
  labels: mapOf("string"),
  name: "string",
  nodeSelector: mapOf("string"),
  tolerations: listOf("open")
})

const workloadStatus = fields({
  accumulatedPastExecutionTimeSeconds: "integer",
  // v1beta1 spells it so.
  accumulatedPastExexcutionTimeSeconds: "integer",
  admission: fields({
    clusterQueue: "string",
    podSetAssignments: listOf(
      fields({
        count: "integer",
        delayedTopologyRequest: "string",
        flavors: mapOf("string"),
        name: "string",
        resourceUsage: mapOf("quantity"),
        topologyAssignment: "open"
      })
    )
  }),
  admissionChecks: listOf(
    fields({
      lastTransitionTime: "string",
      message: "string",
      name: "string",
      podSetUpdates: listOf(podSetUpdate),
      requeueAfterSeconds: "integer",
      retryCount: "integer",
      state: "string"
    })
  ),
  clusterName: "string",
  conditions: listOf(condition),
  nominatedClusterNames: listOf("string"),
  preemptionGates: listOf(fields({ lastTransitionTime: "string", name: "string", position: "string" })),
  reclaimablePods: listOf(fields({ count: "integer", name: "string" })),
  requeueState: fields({ count: "integer", requeueAt: "string" }),
  resourceRequests: listOf(fields({ name: "string", resources: mapOf("quantity") })),
  schedulingStats: fields({ evictions: listOf(fields({ count: "integer", reason: "string", underlyingCause: "string" })) }),
  unhealthyNodes: listOf(fields({ name: "string" }))
})

/** A Workload. */
export const workloadFields: FieldTree = kindFields({
  spec: fields({
    active: "boolean",
    maximumExecutionTimeSeconds: "integer",
    podSets: listOf(fields({ count: "integer", minCount: "integer", name: "string", template: podTemplate, topologyRequest })),
    preemptionGates: listOf(fields({ name: "string" })),
    priority: "integer",
    priorityClassName: "string",
    priorityClassRef: fields({ group: "string", kind: "string", name: "string" }),
    priorityClassSource: "string",
    queueName: "string"
  }),
  status: workloadStatus
})
