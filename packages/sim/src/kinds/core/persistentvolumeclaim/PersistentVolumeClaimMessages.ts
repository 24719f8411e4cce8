// The protobuf wire shape of core/v1 PersistentVolumeClaim and the messages it embeds besides the pod's
// (PodMessages): per message, each field's number, JSON name, type and flags. Field numbers are Kubernetes'
// protobuf contract (the `protobuf:` tags of k8s.io/api's Go types): they never change once released, so a
// newer table decodes what an older kubectl sends. The entry syntax is the one http/ApiMessages.ts describes.

/** The field tables, by `<group>.<version>.<Kind>`. */
export const persistentVolumeClaimMessages: Readonly<Record<string, string>> = {
  "core.v1.PersistentVolumeClaim": "1:metadata:meta.v1.ObjectMeta:o 2:spec:core.v1.PersistentVolumeClaimSpec:o 3:status:core.v1.PersistentVolumeClaimStatus:o",
  "core.v1.ModifyVolumeStatus": "1:targetVolumeAttributesClassName:string:o 2:status:string",
  "core.v1.PersistentVolumeClaimCondition": "1:type:string 2:status:string 3:lastProbeTime:time:o 4:lastTransitionTime:time:o 5:reason:string:o 6:message:string:o",
  "core.v1.PersistentVolumeClaimStatus": "1:phase:string:o 2:accessModes:string:ro 3:capacity:quantity:mo 4:conditions:core.v1.PersistentVolumeClaimCondition:ro 5:allocatedResources:quantity:mo 7:allocatedResourceStatuses:string:mo 8:currentVolumeAttributesClassName:string:op 9:modifyVolumeStatus:core.v1.ModifyVolumeStatus:op 10:healthStatus:core.v1.VolumeHealthStatus:op",
  "core.v1.VolumeHealthStatus": "1:healthConditions:core.v1.VolumeHealthCondition:ro 2:lastTransitionTime:time:o"
}
