// The protobuf wire shape of batch/v1 Job and the messages it embeds besides the pod template's (PodMessages): per message, each field's number, JSON name, type and flags.
// Field numbers are Kubernetes' protobuf contract (the `protobuf:` tags of k8s.io/api's Go types): they
// never change once released, so a newer table decodes what an older kubectl sends. The entry syntax is
// the one http/ApiMessages.ts describes.

/** The field tables, by `<group>.<version>.<Kind>`. */
export const jobMessages: Readonly<Record<string, string>> = {
  "batch.v1.Job": "1:metadata:meta.v1.ObjectMeta:o 2:spec:batch.v1.JobSpec:o 3:status:batch.v1.JobStatus:o",
  "batch.v1.JobCondition": "1:type:string 2:status:string 3:lastProbeTime:time:o 4:lastTransitionTime:time:o 5:reason:string:o 6:message:string:o",
  "batch.v1.JobSchedulingConfiguration": "1:schedulingPolicy:scheduling.v1alpha3.WorkloadPodGroupSchedulingPolicy:op 2:schedulingConstraints:scheduling.v1alpha3.WorkloadPodGroupSchedulingConstraints:op 3:disruptionMode:scheduling.v1alpha3.WorkloadPodGroupDisruptionMode:op 4:resourceClaims:scheduling.v1alpha3.WorkloadPodGroupResourceClaim:ro",
  "batch.v1.JobSpec": "1:parallelism:int32:op 2:completions:int32:op 3:activeDeadlineSeconds:int64:op 11:podFailurePolicy:batch.v1.PodFailurePolicy:op 16:successPolicy:batch.v1.SuccessPolicy:op 7:backoffLimit:int32:op 12:backoffLimitPerIndex:int32:op 13:maxFailedIndexes:int32:op 4:selector:meta.v1.LabelSelector:op 5:manualSelector:bool:op 6:template:core.v1.PodTemplateSpec 8:ttlSecondsAfterFinished:int32:op 9:completionMode:string:op 10:suspend:bool:op 14:podReplacementPolicy:string:op 15:managedBy:string:op 17:scheduling:batch.v1.JobSchedulingConfiguration:op",
  "batch.v1.JobStatus": "1:conditions:batch.v1.JobCondition:ro 2:startTime:time:op 3:completionTime:time:op 4:active:int32:o 5:succeeded:int32:o 6:failed:int32:o 11:terminating:int32:op 7:completedIndexes:string:o 10:failedIndexes:string:op 8:uncountedTerminatedPods:batch.v1.UncountedTerminatedPods:op 9:ready:int32:op",
  "batch.v1.PodFailurePolicy": "1:rules:batch.v1.PodFailurePolicyRule:r",
  "batch.v1.PodFailurePolicyOnExitCodesRequirement": "1:containerName:string:op 2:operator:string 3:values:int32:r",
  "batch.v1.PodFailurePolicyOnPodConditionsPattern": "1:type:string 2:status:string",
  "batch.v1.PodFailurePolicyRule": "1:action:string 2:onExitCodes:batch.v1.PodFailurePolicyOnExitCodesRequirement:op 3:onPodConditions:batch.v1.PodFailurePolicyOnPodConditionsPattern:ro",
  "batch.v1.SuccessPolicy": "1:rules:batch.v1.SuccessPolicyRule:r",
  "batch.v1.SuccessPolicyRule": "1:succeededIndexes:string:op 2:succeededCount:int32:op",
  "batch.v1.UncountedTerminatedPods": "1:succeeded:string:ro 2:failed:string:ro",
  "scheduling.v1alpha3.TopologyConstraint": "1:key:string",
  "scheduling.v1alpha3.WorkloadPodGroupAllDisruptionMode": "",
  "scheduling.v1alpha3.WorkloadPodGroupBasicSchedulingPolicy": "",
  "scheduling.v1alpha3.WorkloadPodGroupDisruptionMode": "1:single:scheduling.v1alpha3.WorkloadPodGroupSingleDisruptionMode:op 2:all:scheduling.v1alpha3.WorkloadPodGroupAllDisruptionMode:op",
  "scheduling.v1alpha3.WorkloadPodGroupGangSchedulingPolicy": "1:minCount:int32:op",
  "scheduling.v1alpha3.WorkloadPodGroupResourceClaim": "1:name:string 2:resourceClaimName:string:op 3:resourceClaimTemplateName:string:op",
  "scheduling.v1alpha3.WorkloadPodGroupSchedulingConstraints": "1:topology:scheduling.v1alpha3.TopologyConstraint:ro",
  "scheduling.v1alpha3.WorkloadPodGroupSchedulingPolicy": "1:basic:scheduling.v1alpha3.WorkloadPodGroupBasicSchedulingPolicy:op 2:gang:scheduling.v1alpha3.WorkloadPodGroupGangSchedulingPolicy:op",
  "scheduling.v1alpha3.WorkloadPodGroupSingleDisruptionMode": ""
}
