// The protobuf wire shape of core/v1 Service and the messages it embeds: per message, each field's number,
// JSON name, type and flags. Field numbers are Kubernetes' protobuf contract (the `protobuf:` tags of
// k8s.io/api's Go types): they never change once released, so a newer table decodes what an older kubectl
// sends. The entry syntax is the one http/ApiMessages.ts describes.

/** The field tables, by `<group>.<version>.<Kind>`. */
export const serviceMessages: Readonly<Record<string, string>> = {
  "core.v1.Service": "1:metadata:meta.v1.ObjectMeta:o 2:spec:core.v1.ServiceSpec:o 3:status:core.v1.ServiceStatus:o",
  "core.v1.ClientIPConfig": "1:timeoutSeconds:int32:op",
  "core.v1.LoadBalancerIngress": "1:ip:string:o 2:hostname:string:o 3:ipMode:string:op 4:ports:core.v1.PortStatus:ro",
  "core.v1.LoadBalancerStatus": "1:ingress:core.v1.LoadBalancerIngress:ro",
  "core.v1.PortStatus": "1:port:int32 2:protocol:string 3:error:string:op",
  "core.v1.ServicePort": "1:name:string:o 2:protocol:string:o 6:appProtocol:string:op 3:port:int32 4:targetPort:intOrString 5:nodePort:int32:o",
  "core.v1.ServiceSpec": "1:ports:core.v1.ServicePort:ro 2:selector:string:mo 3:clusterIP:string:o 18:clusterIPs:string:ro 4:type:string:o 5:externalIPs:string:ro 7:sessionAffinity:string:o 8:loadBalancerIP:string:o 9:loadBalancerSourceRanges:string:ro 10:externalName:string:o 11:externalTrafficPolicy:string:o 12:healthCheckNodePort:int32:o 13:publishNotReadyAddresses:bool:o 14:sessionAffinityConfig:core.v1.SessionAffinityConfig:op 19:ipFamilies:string:ro 17:ipFamilyPolicy:string:op 20:allocateLoadBalancerNodePorts:bool:op 21:loadBalancerClass:string:op 22:internalTrafficPolicy:string:op 23:trafficDistribution:string:op",
  "core.v1.ServiceStatus": "1:loadBalancer:core.v1.LoadBalancerStatus:o 2:conditions:meta.v1.Condition:ro",
  "core.v1.SessionAffinityConfig": "1:clientIP:core.v1.ClientIPConfig:op"
}
