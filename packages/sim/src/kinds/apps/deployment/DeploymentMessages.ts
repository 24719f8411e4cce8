// The protobuf wire shape of apps/v1 Deployment and the messages it embeds besides the pod template's
// (PodMessages): per message, each field's number, JSON name, type and flags. Field numbers are Kubernetes'
// protobuf contract (the `protobuf:` tags of k8s.io/api's Go types): they never change once released, so a
// newer table decodes what an older kubectl sends. The entry syntax is the one http/ApiMessages.ts describes.

/** The field tables, by `<group>.<version>.<Kind>`. */
export const deploymentMessages: Readonly<Record<string, string>> = {
  "apps.v1.Deployment": "1:metadata:meta.v1.ObjectMeta:o 2:spec:apps.v1.DeploymentSpec:o 3:status:apps.v1.DeploymentStatus:o",
  "apps.v1.DeploymentCondition": "1:type:string 2:status:string 6:lastUpdateTime:time:o 7:lastTransitionTime:time:o 4:reason:string:o 5:message:string:o",
  "apps.v1.DeploymentSpec": "1:replicas:int32:op 2:selector:meta.v1.LabelSelector:p 3:template:core.v1.PodTemplateSpec 4:strategy:apps.v1.DeploymentStrategy:o 5:minReadySeconds:int32:o 6:revisionHistoryLimit:int32:op 7:paused:bool:o 9:progressDeadlineSeconds:int32:op",
  "apps.v1.DeploymentStatus": "1:observedGeneration:int64:o 2:replicas:int32:o 3:updatedReplicas:int32:o 7:readyReplicas:int32:o 4:availableReplicas:int32:o 5:unavailableReplicas:int32:o 9:terminatingReplicas:int32:op 6:conditions:apps.v1.DeploymentCondition:ro 8:collisionCount:int32:op",
  "apps.v1.DeploymentStrategy": "1:type:string:o 2:rollingUpdate:apps.v1.RollingUpdateDeployment:op",
  "apps.v1.RollingUpdateDeployment": "1:maxUnavailable:intOrString:op 2:maxSurge:intOrString:op"
}
