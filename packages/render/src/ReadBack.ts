import { admissionGatedBy, valueAt } from "@dispatch/kube"
import type { BackendConfig } from "./Config.ts"
import { isRecord, putOwn } from "./Json.ts"
import { firstDifference, pathText } from "./JsonDifference.ts"
import { patchManager } from "./Names.ts"
import { preview } from "./Preview.ts"
import { KUEUE_QUEUE_LABEL, TRAINER_CONTROLLER } from "./Upstream.ts"

// Start step 8. Only what dispatch wrote and owns is compared: the server's defaults, status and its own
// metadata (uid, resourceVersion, managedFields, ...) and other managers' labels and patches are not.

const differs = (field: string, wrote: unknown, read: unknown): string => `${field}: wrote ${preview(wrote)}, read ${preview(read)}`

/** The reason for a field whose value differs, naming the first differing leaf below it; undefined when equal. */
const leafDiffers = (field: string, wrote: unknown, read: unknown): string | undefined => {
  const d = firstDifference(wrote, read)
  return d === undefined ? undefined : differs(`${field}${pathText(d.segments)}`, d.left, d.right)
}

const mapDifferences = (field: "labels" | "annotations", written: unknown, read: unknown, owned: (key: string) => boolean): Array<string> => {
  const wrote = valueAt(written, ["metadata", field])
  const got = valueAt(read, ["metadata", field])
  const wroteMap = isRecord(wrote) ? wrote : {}
  const gotMap = isRecord(got) ? got : {}
  const out: Array<string> = []
  for (const key of Object.keys(wroteMap)) {
    const value = Object.hasOwn(gotMap, key) ? gotMap[key] : undefined
    if (value !== wroteMap[key]) out.push(differs(`metadata.${field}[${JSON.stringify(key)}]`, wroteMap[key], value))
  }
  for (const key of Object.keys(gotMap).sort()) {
    if (!Object.hasOwn(wroteMap, key) && owned(key)) out.push(differs(`metadata.${field}[${JSON.stringify(key.slice(0, 253))}]`, undefined, gotMap[key]))
  }
  return out
}

// An env entry whose value is "" may come back without `value` after a round trip through Go's omitempty:
// entries are compared with `value` last and "" for a missing one. Copied key by key: a rest-and-spread
// copy cost more than the comparison it prepares.
const envValue = (entry: unknown): unknown => {
  if (!isRecord(entry)) return entry
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(entry)) if (key !== "value") putOwn(out, key, entry[key])
  out["value"] = entry["value"] ?? ""
  return out
}

const trainerDifferences = (written: unknown, read: unknown): Array<string> => {
  const wrote = valueAt(written, ["spec", "trainer"])
  const got = valueAt(read, ["spec", "trainer"])
  if (!isRecord(got)) return [differs("spec.trainer", wrote, got)]
  const wroteMap = isRecord(wrote) ? wrote : {}
  const keys = [...new Set([...Object.keys(wroteMap), ...Object.keys(got)])]
  const out: Array<string> = []
  for (const key of keys) {
    const a = Object.hasOwn(wroteMap, key) ? wroteMap[key] : undefined
    const b = Object.hasOwn(got, key) ? got[key] : undefined
    const field = `spec.trainer${pathText([key])}`
    const reason = key === "env" && Array.isArray(a) && Array.isArray(b) ? leafDiffers(field, a.map(envValue), b.map(envValue)) : leafDiffers(field, a, b)
    if (reason !== undefined) out.push(reason)
  }
  return out
}

const patchDifferences = (written: unknown, read: unknown, config: BackendConfig): Array<string> => {
  const manager = patchManager(config)
  const find = (object: unknown): unknown => {
    const patches = valueAt(object, ["spec", "runtimePatches"])
    return Array.isArray(patches) ? patches.find((p) => valueAt(p, ["manager"]) === manager) : undefined
  }
  const wrote = find(written)
  const got = find(read)
  if (got === undefined) return [`spec.runtimePatches: dispatch's patch (manager ${manager}) is missing`]
  // The webhook stamps `time` on each patch; it is the server's, not dispatch's.
  const { time: _time, ...gotWithoutTime } = isRecord(got) ? got : {}
  const reason = leafDiffers(`spec.runtimePatches[manager=${manager}]`, wrote, gotWithoutTime)
  return reason === undefined ? [] : [reason]
}

/** How the TrainJob read back came to be. */
export interface ReadBackOptions {
  /** It existed before this Start (a retry found it): Open, Hold and Release may since have moved its start
   * gate, so spec.suspend is not compared. */
  readonly adopted?: boolean
}

/** Start step 8: every difference between the TrainJob written and the one read back; [] when they agree. */
export const compareReadBack = (written: unknown, read: unknown, config: BackendConfig, options: ReadBackOptions = {}): ReadonlyArray<string> => {
  if (!isRecord(read)) return [`the object read back is ${preview(read)}, not a TrainJob`]
  const domain = `${config.labelDomain}/`
  const out = [
    ...mapDifferences("labels", written, read, (key) => key.startsWith(domain) || key === KUEUE_QUEUE_LABEL),
    ...mapDifferences("annotations", written, read, (key) => key.startsWith(domain) || key === admissionGatedBy)
  ]
  for (const field of ["runtimeRef", "activeDeadlineSeconds"]) {
    const a = valueAt(written, ["spec", field])
    const b = valueAt(read, ["spec", field])
    const reason = leafDiffers(`spec.${field}`, a, b)
    if (reason !== undefined) out.push(reason)
  }
  out.push(...trainerDifferences(written, read), ...patchDifferences(written, read, config))
  const managedBy = valueAt(read, ["spec", "managedBy"])
  if (managedBy !== undefined && managedBy !== TRAINER_CONTROLLER) out.push(differs("spec.managedBy", TRAINER_CONTROLLER, managedBy))
  // Only a TrainJob this Start created: once adopted, Open, Hold and Release (or Kueue) may have moved it.
  if (options.adopted !== true) {
    const a = valueAt(written, ["spec", "suspend"])
    const b = valueAt(read, ["spec", "suspend"])
    if (config.mode === "plain" && a !== b) out.push(differs("spec.suspend", a, b))
    // Beyond the seed's list: Kueue's webhook closes every queue-labelled TrainJob on create, so one that
    // reads back open is not Kueue's, and would run without dispatch's gate.
    if (config.mode === "kueue" && b !== true) out.push(`spec.suspend: Kueue's webhook sets true on create, read ${preview(b)}: Kueue does not manage this TrainJob`)
  }
  return out
}
