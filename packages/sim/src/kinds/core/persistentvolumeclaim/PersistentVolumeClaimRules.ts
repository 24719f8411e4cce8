// A core/v1 PersistentVolumeClaim's schema, defaults and rules, as the API server applies them: volume mode
// Filesystem, a new claim Pending; at least one access mode of the known ones and a storage request.
import type { KubeObject } from "../../../Api.ts"
import { type FieldError, notSupported, requiredValue } from "../../../apiserver/validation/FieldErrors.ts"
import type { FieldTree } from "../../../apiserver/validation/FieldTree.ts"
import { isJsonObject } from "../../../apiserver/store/JsonValue.ts"
import { withDefaults } from "../../Defaults.ts"
import { kindMessageFields } from "../../MessageFields.ts"
import { podMessages } from "../pod/PodMessages.ts"
import { persistentVolumeClaimMessages } from "./PersistentVolumeClaimMessages.ts"

type Json = Record<string, unknown>

const object = (value: unknown): Json => (isJsonObject(value) ? value : {})

/** The fields of a PersistentVolumeClaim. */
export const persistentVolumeClaimFields: FieldTree = kindMessageFields({ ...podMessages, ...persistentVolumeClaimMessages }, "core.v1.PersistentVolumeClaim")

/** The access modes a claim may ask for. */
export const accessModes: ReadonlyArray<string> = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"]

/** A claim with core/v1's defaults filled in. */
export const claimDefaults = (claim: Json): Json => (isJsonObject(claim["spec"]) ? { ...claim, spec: withDefaults(claim["spec"], { volumeMode: "Filesystem" }) } : claim)

/** A new claim is Pending until a volume is bound to it (none ever is: the simulator has no volumes). */
export const prepareClaim = (claim: KubeObject): KubeObject => ({ ...claim, status: { phase: "Pending" } })

/** Every problem beyond the schema's types with a claim about to be stored. */
export const checkClaim = (claim: Json): ReadonlyArray<FieldError> => {
  const spec = object(claim["spec"])
  const modes = Array.isArray(spec["accessModes"]) ? spec["accessModes"] : []
  const errors: Array<FieldError> = []
  if (modes.length === 0) errors.push(requiredValue("spec.accessModes", "at least 1 access mode is required"))
  modes.forEach((mode) => {
    if (typeof mode !== "string" || !accessModes.includes(mode)) errors.push(notSupported("spec.accessModes", mode, accessModes))
  })
  if (object(object(spec["resources"])["requests"])["storage"] === undefined) errors.push(requiredValue("spec.resources[storage]"))
  return errors
}
