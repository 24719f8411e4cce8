// The protobuf wire shape of the messages the API server itself reads, whatever kinds it serves
// (authorization/v1's self reviews, authentication/v1's TokenRequest, meta/v1's DeleteOptions and the ObjectMeta every kind embeds):
// per message, each field's number, its JSON name, its type (a scalar, one of the special wire types
// below, or another message) and flags. The field numbers are Kubernetes' protobuf contract (the
// `protobuf:` tags of k8s.io/api and apimachinery's Go types); they never change once released, so a
// newer table decodes what an older kubectl sends.
//
// Entry syntax: `<number>:<json name>:<type>[:<flags>]`, flags r = repeated, m = map<string, type>,
// o = omitempty in JSON, p = a pointer in Go (present even when zero), i = inlined into the parent's JSON.
// Special types: quantity, time, microTime, duration, intOrString, raw (RawExtension), fieldsV1,
// stringList (authorization's ExtraValue).

/** The API server's own field tables, by `<group>.<version>.<Kind>`. */
export const apiMessages: Readonly<Record<string, string>> = {
  "authentication.v1.BoundObjectReference": "1:kind:string:o 2:apiVersion:string:o 3:name:string:o 4:uid:string:o",
  "authentication.v1.TokenRequest": "1:metadata:meta.v1.ObjectMeta:o 2:spec:authentication.v1.TokenRequestSpec 3:status:authentication.v1.TokenRequestStatus:o",
  "authentication.v1.TokenRequestSpec": "1:audiences:string:r 4:expirationSeconds:int64:op 3:boundObjectRef:authentication.v1.BoundObjectReference:op",
  "authentication.v1.TokenRequestStatus": "1:token:string 2:expirationTimestamp:time",
  "authorization.v1.FieldSelectorAttributes": "1:rawSelector:string:o 2:requirements:meta.v1.FieldSelectorRequirement:ro",
  "authorization.v1.LabelSelectorAttributes": "1:rawSelector:string:o 2:requirements:meta.v1.LabelSelectorRequirement:ro",
  "authorization.v1.NonResourceAttributes": "1:path:string:o 2:verb:string:o",
  "authorization.v1.NonResourceRule": "1:verbs:string:r 2:nonResourceURLs:string:ro",
  "authorization.v1.ResourceAttributes": "1:namespace:string:o 2:verb:string:o 3:group:string:o 4:version:string:o 5:resource:string:o 6:subresource:string:o 7:name:string:o 8:fieldSelector:authorization.v1.FieldSelectorAttributes:op 9:labelSelector:authorization.v1.LabelSelectorAttributes:op",
  "authorization.v1.ResourceRule": "1:verbs:string:r 2:apiGroups:string:ro 3:resources:string:ro 4:resourceNames:string:ro",
  "authorization.v1.SelfSubjectAccessReview": "1:metadata:meta.v1.ObjectMeta:o 2:spec:authorization.v1.SelfSubjectAccessReviewSpec 3:status:authorization.v1.SubjectAccessReviewStatus:o",
  "authorization.v1.SelfSubjectAccessReviewSpec": "1:resourceAttributes:authorization.v1.ResourceAttributes:op 2:nonResourceAttributes:authorization.v1.NonResourceAttributes:op",
  "authorization.v1.SelfSubjectRulesReview": "1:metadata:meta.v1.ObjectMeta:o 2:spec:authorization.v1.SelfSubjectRulesReviewSpec 3:status:authorization.v1.SubjectRulesReviewStatus:o",
  "authorization.v1.SelfSubjectRulesReviewSpec": "1:namespace:string:o",
  "authorization.v1.SubjectAccessReview": "1:metadata:meta.v1.ObjectMeta:o 2:spec:authorization.v1.SubjectAccessReviewSpec 3:status:authorization.v1.SubjectAccessReviewStatus:o",
  "authorization.v1.SubjectAccessReviewSpec": "1:resourceAttributes:authorization.v1.ResourceAttributes:op 2:nonResourceAttributes:authorization.v1.NonResourceAttributes:op 3:user:string:o 4:groups:string:ro 5:extra:stringList:mo 6:uid:string:o",
  "authorization.v1.SubjectAccessReviewStatus": "1:allowed:bool 4:denied:bool:o 2:reason:string:o 3:evaluationError:string:o",
  "authorization.v1.SubjectRulesReviewStatus": "1:resourceRules:authorization.v1.ResourceRule:r 2:nonResourceRules:authorization.v1.NonResourceRule:r 3:incomplete:bool 4:evaluationError:string:o",
  "meta.v1.DeleteOptions": "1:gracePeriodSeconds:int64:op 2:preconditions:meta.v1.Preconditions:op 3:orphanDependents:bool:op 4:propagationPolicy:string:op 5:dryRun:string:ro 6:ignoreStoreReadErrorWithClusterBreakingPotential:bool:op",
  "meta.v1.FieldSelectorRequirement": "1:key:string 2:operator:string 3:values:string:ro",
  "meta.v1.LabelSelector": "1:matchLabels:string:mo 2:matchExpressions:meta.v1.LabelSelectorRequirement:ro",
  "meta.v1.LabelSelectorRequirement": "1:key:string 2:operator:string 3:values:string:ro",
  "meta.v1.ManagedFieldsEntry": "1:manager:string:o 2:operation:string:o 3:apiVersion:string:o 4:time:time:op 6:fieldsType:string:o 7:fieldsV1:fieldsV1:op 8:subresource:string:o",
  "meta.v1.ObjectMeta": "1:name:string:o 2:generateName:string:o 3:namespace:string:o 4:selfLink:string:o 5:uid:string:o 6:resourceVersion:string:o 7:generation:int64:o 8:creationTimestamp:time:o 9:deletionTimestamp:time:op 10:deletionGracePeriodSeconds:int64:op 11:labels:string:mo 12:annotations:string:mo 13:ownerReferences:meta.v1.OwnerReference:ro 14:finalizers:string:ro 17:managedFields:meta.v1.ManagedFieldsEntry:ro",
  "meta.v1.OwnerReference": "5:apiVersion:string 1:kind:string 3:name:string 4:uid:string 6:controller:bool:op 7:blockOwnerDeletion:bool:op",
  "meta.v1.Preconditions": "1:uid:string:op 2:resourceVersion:string:op"
}
