import { Schema } from "effect"

// Only the fields dispatch reads are typed; every other field rides along in the rest record, so an
// object read and written back keeps what the server or other controllers put there.

const Rest = [Schema.Record(Schema.String, Schema.Unknown)] as const
const StringMap = Schema.Record(Schema.String, Schema.String)

/** metadata.ownerReferences[] entry. */
export const OwnerReference = Schema.StructWithRest(
  Schema.Struct({
    apiVersion: Schema.String,
    kind: Schema.String,
    name: Schema.String,
    uid: Schema.String,
    controller: Schema.optionalKey(Schema.Boolean)
  }),
  Rest
)
/** metadata.ownerReferences[] entry. */
export type OwnerReference = typeof OwnerReference.Type

/** The metadata dispatch reads. */
export const ObjectMeta = Schema.StructWithRest(
  Schema.Struct({
    name: Schema.String,
    namespace: Schema.optionalKey(Schema.String),
    uid: Schema.optionalKey(Schema.String),
    resourceVersion: Schema.optionalKey(Schema.String),
    labels: Schema.optionalKey(StringMap),
    annotations: Schema.optionalKey(StringMap),
    ownerReferences: Schema.optionalKey(Schema.Array(OwnerReference)),
    deletionTimestamp: Schema.optionalKey(Schema.String)
  }),
  Rest
)
/** The metadata dispatch reads. */
export type ObjectMeta = typeof ObjectMeta.Type

/** Any object the API server returns, with typed metadata. */
export const KubeResource = Schema.StructWithRest(
  Schema.Struct({ apiVersion: Schema.String, kind: Schema.String, metadata: ObjectMeta }),
  Rest
)
/** Any object the API server returns, with typed metadata. */
export type KubeResource = typeof KubeResource.Type

/** One entry of a Workload's status.admissionChecks. */
export const AdmissionCheckState = Schema.StructWithRest(
  Schema.Struct({ name: Schema.String, state: Schema.optionalKey(Schema.String) }),
  Rest
)

/** A Kueue Workload, typed where Start's wait reads it. */
export const Workload = Schema.StructWithRest(
  Schema.Struct({
    apiVersion: Schema.String,
    kind: Schema.String,
    metadata: ObjectMeta,
    status: Schema.optionalKey(
      Schema.StructWithRest(Schema.Struct({ admissionChecks: Schema.optionalKey(Schema.Array(AdmissionCheckState)) }), Rest)
    )
  }),
  Rest
)
/** A Kueue Workload, typed where Start's wait reads it. */
export type Workload = typeof Workload.Type

/** Decodes an answer body into a KubeResource, or nothing when it is not one. */
export const decodeKubeResource = Schema.decodeUnknownOption(KubeResource)

/** Decodes an object into a Workload, or nothing when it is not one. */
export const decodeWorkload = Schema.decodeUnknownOption(Workload)
