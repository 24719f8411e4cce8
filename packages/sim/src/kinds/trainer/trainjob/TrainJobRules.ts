// What the TrainJob CRD (and the part of Trainer's webhook that needs no other object) enforces:
// the RFC 1035 name, runtimeRef, trainer limits, runtimePatches keyed by manager, managedBy values,
// activeDeadlineSeconds, the immutable fields, and runtimePatches changing only while suspended.
import { duplicate, type FieldError, forbidden, invalidValue, notSupported, requiredValue, wrongType } from "../../../apiserver/validation/FieldErrors.ts"
import { isJsonObject, jsonEqual, keepsFrozenPart, valueAt } from "../../../apiserver/store/JsonValue.ts"
import { isRfc1035Label } from "@dispatch/kube"
import { checkArray, checkBoolean, checkInteger, checkString } from "../../../apiserver/validation/SchemaChecks.ts"

/** The managedBy value of Trainer's own controller (the default). */
export const trainerManager = "trainer.kubeflow.org/trainjob-controller"
/** The managedBy values the CRD allows. */
export const managedByValues: ReadonlyArray<string> = [trainerManager, "kueue.x-k8s.io/multikueue"]
/** The runtime kinds a runtimeRef may name. */
export const runtimeKinds: ReadonlyArray<string> = ["ClusterTrainingRuntime", "TrainingRuntime"]

const immutableFields = ["runtimeRef", "trainer", "initializer", "managedBy", "activeDeadlineSeconds"] as const

const checkRuntimeRef = (ref: unknown): ReadonlyArray<FieldError> => {
  if (ref === undefined) return [requiredValue("spec.runtimeRef")]
  if (!isJsonObject(ref)) return [wrongType("spec.runtimeRef", ref, "object")]
  const kind = ref["kind"]
  return [
    ...(ref["name"] === undefined ? [requiredValue("spec.runtimeRef.name")] : checkString("spec.runtimeRef.name", ref["name"], 253, 1)),
    ...checkString("spec.runtimeRef.apiGroup", ref["apiGroup"], 253),
    ...checkString("spec.runtimeRef.kind", kind, 253),
    ...(typeof kind === "string" && !runtimeKinds.includes(kind) ? [notSupported("spec.runtimeRef.kind", kind, runtimeKinds)] : [])
  ]
}

const checkStringItems = (field: string, value: unknown): ReadonlyArray<FieldError> =>
  Array.isArray(value) ? value.flatMap((item, i) => checkString(`${field}[${i}]`, item, 1_048_576)) : []

const checkKeyedList = (field: string, items: unknown, key: string, max: number): ReadonlyArray<FieldError> => {
  const shape = checkArray(field, items, max)
  if (shape.length > 0 || !Array.isArray(items)) return shape
  const seen = new Set<string>()
  return items.flatMap((item, i): ReadonlyArray<FieldError> => {
    const k = valueAt(item, [key])
    if (k === undefined) return [requiredValue(`${field}[${i}].${key}`)]
    if (typeof k === "string" && seen.has(k)) return [duplicate(`${field}[${i}]`, `map[${key}:${k}]`)]
    if (typeof k === "string") seen.add(k)
    return []
  })
}

const checkTrainer = (trainer: unknown): ReadonlyArray<FieldError> => {
  if (trainer === undefined) return []
  if (!isJsonObject(trainer)) return [wrongType("spec.trainer", trainer, "object")]
  return [
    ...checkString("spec.trainer.image", trainer["image"], 500),
    ...checkArray("spec.trainer.command", trainer["command"], 128),
    ...checkStringItems("spec.trainer.command", trainer["command"]),
    ...checkArray("spec.trainer.args", trainer["args"], 128),
    ...checkStringItems("spec.trainer.args", trainer["args"]),
    ...checkKeyedList("spec.trainer.env", trainer["env"], "name", 128),
    ...checkInteger("spec.trainer.numNodes", trainer["numNodes"], 0),
    // A value that is not an integer at all is the type check's to report.
    ...(typeof trainer["numProcPerNode"] === "number" && trainer["numProcPerNode"] < 1
      ? [invalidValue("spec.trainer.numProcPerNode", trainer["numProcPerNode"], "numProcPerNode must be greater than or equal to 1")]
      : [])
  ]
}

const checkRuntimePatches = (patches: unknown): ReadonlyArray<FieldError> => {
  const keyed = checkKeyedList("spec.runtimePatches", patches, "manager", 16)
  const managers = Array.isArray(patches)
    ? patches.flatMap((p, i) => checkString(`spec.runtimePatches[${i}].manager`, valueAt(p, ["manager"]), 253, 1))
    : []
  return [...keyed, ...managers]
}

const checkManagedBy = (value: unknown): ReadonlyArray<FieldError> => {
  const shape = checkString("spec.managedBy", value, 253)
  if (shape.length > 0 || typeof value !== "string") return shape
  return managedByValues.includes(value)
    ? []
    : [invalidValue("spec.managedBy", value, "ManagedBy must be trainer.kubeflow.org/trainjob-controller or kueue.x-k8s.io/multikueue if set")]
}

const checkName = (name: unknown): ReadonlyArray<FieldError> =>
  typeof name === "string" && !isRfc1035Label(name)
    ? [
        ...(/^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(name) ? [] : [invalidValue("metadata.name", name, "metadata.name must match RFC 1035 DNS label format")]),
        ...(name.length > 63 ? [invalidValue("metadata.name", name, "metadata.name must be no more than 63 characters")] : [])
      ]
    : []

// CEL transition rules (self == oldSelf) run only when the field is present in both versions.
const checkImmutable = (spec: Record<string, unknown>, old: Record<string, unknown>): ReadonlyArray<FieldError> =>
  immutableFields.flatMap((f) =>
    spec[f] !== undefined && old[f] !== undefined && !jsonEqual(spec[f], old[f]) ? [invalidValue(`spec.${f}`, spec[f], "field is immutable")] : []
  )

const checkPatchesWhileRunning = (spec: Record<string, unknown>, old: Record<string, unknown>): ReadonlyArray<FieldError> => {
  const suspended = spec["suspend"] === true || old["suspend"] === true
  return suspended || jsonEqual(spec["runtimePatches"] ?? [], old["runtimePatches"] ?? [])
    ? []
    : [forbidden("spec.runtimePatches", "runtimePatches can only be changed while the TrainJob is suspended")]
}

/** Every problem with a TrainJob (and, on update, with the change from `old`). */
export const checkTrainJob = (object: Record<string, unknown>, old: Record<string, unknown> | undefined): ReadonlyArray<FieldError> => {
  const spec = object["spec"]
  // A spec kept as stored (a status write's, under a name the server keeps) passed these checks when it
  // was stored, and being frozen it cannot have changed since: nothing to look at again.
  if (old !== undefined && keepsFrozenPart(object, old, "spec") && valueAt(object, ["metadata", "name"]) === valueAt(old, ["metadata", "name"])) return []
  const nameErrors = checkName(valueAt(object, ["metadata", "name"]))
  if (spec === undefined) return [...nameErrors, requiredValue("spec")]
  if (!isJsonObject(spec)) return [...nameErrors, wrongType("spec", spec, "object")]
  const oldSpec = valueAt(old, ["spec"])
  return [
    ...nameErrors,
    ...checkRuntimeRef(spec["runtimeRef"]),
    ...checkTrainer(spec["trainer"]),
    ...checkRuntimePatches(spec["runtimePatches"]),
    ...checkManagedBy(spec["managedBy"]),
    ...checkInteger("spec.activeDeadlineSeconds", spec["activeDeadlineSeconds"], 1),
    ...checkBoolean("spec.suspend", spec["suspend"]),
    ...(isJsonObject(oldSpec) ? [...checkImmutable(spec, oldSpec), ...checkPatchesWhileRunning(spec, oldSpec)] : [])
  ]
}
