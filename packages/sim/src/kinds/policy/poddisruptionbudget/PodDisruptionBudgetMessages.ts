// The protobuf wire shape of policy/v1 PodDisruptionBudget: per message, each field's number, JSON name, type
// and flags. Field numbers are Kubernetes' protobuf contract (the `protobuf:` tags of k8s.io/api's Go types):
// they never change once released, so a newer table decodes what an older kubectl sends. The entry syntax is
// the one http/ApiMessages.ts describes.

/** The field tables, by `<group>.<version>.<Kind>`. */
export const podDisruptionBudgetMessages: Readonly<Record<string, string>> = {
  "policy.v1.PodDisruptionBudget": "1:metadata:meta.v1.ObjectMeta:o 2:spec:policy.v1.PodDisruptionBudgetSpec:o 3:status:policy.v1.PodDisruptionBudgetStatus:o",
  "policy.v1.PodDisruptionBudgetSpec": "1:minAvailable:intOrString:op 2:selector:meta.v1.LabelSelector:op 3:maxUnavailable:intOrString:op 4:unhealthyPodEvictionPolicy:string:op",
  "policy.v1.PodDisruptionBudgetStatus": "1:observedGeneration:int64:o 2:disruptedPods:time:mo 3:disruptionsAllowed:int32 4:currentHealthy:int32 5:desiredHealthy:int32 6:expectedPods:int32 7:conditions:meta.v1.Condition:ro"
}
