import { Option, Schema } from "effect"

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

// Every answer is decoded as a KubeResource, and a Schema decode copies every field of it into a new object:
// about 7 µs per answer against 0.5 µs for these checks. They are the schema's, field by field, and the
// answer just parsed is kept as it is; KubeObjects.test holds both to the same verdict on any input.
type Fields = Readonly<Record<string, unknown>>

const isFields = (u: unknown): u is Fields => typeof u === "object" && u !== null && !Array.isArray(u)

const isString = (u: unknown): u is string => typeof u === "string"

// Schema.optionalKey: absent, or present with the type (present and undefined is refused).
const optional = (fields: Fields, key: string, is: (u: unknown) => boolean): boolean => !(key in fields) || is(fields[key])

const isStringMap = (u: unknown): boolean => isFields(u) && Object.keys(u).every((key) => isString(u[key]))

const isOwnerReference = (u: unknown): boolean =>
  isFields(u) && isString(u["apiVersion"]) && isString(u["kind"]) && isString(u["name"]) && isString(u["uid"]) && optional(u, "controller", (c) => typeof c === "boolean")

const isObjectMeta = (u: unknown): boolean =>
  isFields(u) &&
  isString(u["name"]) &&
  optional(u, "namespace", isString) &&
  optional(u, "uid", isString) &&
  optional(u, "resourceVersion", isString) &&
  optional(u, "labels", isStringMap) &&
  optional(u, "annotations", isStringMap) &&
  optional(u, "ownerReferences", (refs) => Array.isArray(refs) && refs.every(isOwnerReference)) &&
  optional(u, "deletionTimestamp", isString)

const isKubeResource = (u: unknown): u is KubeResource => isFields(u) && isString(u["apiVersion"]) && isString(u["kind"]) && isObjectMeta(u["metadata"])

/** Decodes an answer body into a KubeResource, or nothing when it is not one (what
 * `Schema.decodeUnknownOption(KubeResource)` answers, without copying the object). */
export const decodeKubeResource = (body: unknown): Option.Option<KubeResource> => (isKubeResource(body) ? Option.some(body) : Option.none())

/** Decodes an object into a Workload, or nothing when it is not one. */
export const decodeWorkload = Schema.decodeUnknownOption(Workload)

// An answer's metadata.managedFields is the server's bookkeeping of who set which field: half of a
// TrainJob's bytes and most of the time JSON.parse spends on it (every "f:..." key is a new string), and
// dispatch never reads it. It is parsed when something reads it, not with the answer.
const managedFieldsKey = '"managedFields":['

// What stands in for the array while the rest is parsed: a string no API server writes.
const standIn = "\u0000dispatch: managedFields not yet parsed"

// The index just past the string whose opening quote is at `at`.
const stringEnd = (text: string, at: number): number => {
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 92) i++
    else if (c === 34) return i + 1
  }
  return text.length
}

// How deep index `until` is in the JSON text's objects and arrays.
const depthAt = (text: string, until: number): number => {
  let depth = 0
  for (let i = 0; i < until; i++) {
    const c = text.charCodeAt(i)
    if (c === 34) i = stringEnd(text, i) - 1
    else if (c === 91 || c === 123) depth++
    else if (c === 93 || c === 125) depth--
  }
  return depth
}

// The index just past the array or object opened at `from`; -1 when the text ends first.
const closingIndex = (text: string, from: number): number => {
  let depth = 0
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 34) i = stringEnd(text, i) - 1
    else if (c === 91 || c === 123) depth++
    else if (c === 93 || c === 125) {
      depth--
      if (depth === 0) return i + 1
    }
  }
  return -1
}

// metadata.managedFields, parsed from `raw` on first read and kept from then on (a write replaces it).
const deferManagedFields = (metadata: Record<string, unknown>, raw: string): void => {
  const settle = (value: unknown): void => {
    // A frozen object keeps the accessor, which then parses on each read.
    if (Object.getOwnPropertyDescriptor(metadata, "managedFields")?.configurable === true) {
      Object.defineProperty(metadata, "managedFields", { value, writable: true, enumerable: true, configurable: true })
    }
  }
  Object.defineProperty(metadata, "managedFields", {
    enumerable: true,
    configurable: true,
    get: () => {
      const value = JSON.parse(raw) as unknown
      settle(value)
      return value
    },
    set: settle
  })
}

/**
 * JSON.parse for an API server's answer, equal to it on every text (the same value, the same key order,
 * the same error), except that an object's metadata.managedFields is parsed on first read.
 */
export const parseAnswer = (text: string): unknown => {
  const key = text.indexOf(managedFieldsKey)
  // Depth 2 is a field of a field of the answer; the parse below checks it is metadata's.
  if (key === -1 || depthAt(text, key) !== 2) return JSON.parse(text)
  const start = key + managedFieldsKey.length - 1
  const end = closingIndex(text, start)
  if (end === -1) return JSON.parse(text)
  let parsed: unknown
  try {
    parsed = JSON.parse(`${text.slice(0, start)}${JSON.stringify(standIn)}${text.slice(end)}`)
  } catch {
    return JSON.parse(text)
  }
  const metadata = isFields(parsed) ? parsed["metadata"] : undefined
  if (!isFields(metadata) || metadata["managedFields"] !== standIn) return JSON.parse(text)
  deferManagedFields(metadata as Record<string, unknown>, text.slice(start, end))
  return parsed
}
