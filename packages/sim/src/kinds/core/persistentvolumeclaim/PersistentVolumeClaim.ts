// core/v1 PersistentVolumeClaim: a request for storage. The simulator keeps no volumes, so a claim stays
// Pending.
import type { KubeObject } from "../../../Api.ts"
import { defineKind } from "../../Kind.ts"
import { ageColumn, column, field, nameColumn, record, text } from "../../Columns.ts"
import { podMessages } from "../pod/PodMessages.ts"
import { checkClaim, claimDefaults, persistentVolumeClaimFields, prepareClaim } from "./PersistentVolumeClaimRules.ts"
import { persistentVolumeClaimMessages } from "./PersistentVolumeClaimMessages.ts"

const shortModes: Readonly<Record<string, string>> = { ReadWriteOnce: "RWO", ReadOnlyMany: "ROX", ReadWriteMany: "RWX", ReadWriteOncePod: "RWOP" }

// kubectl's ACCESS MODES: the bound volume's modes (the claim's status), short.
const modes = (o: KubeObject): string => {
  const all = field(o, "status", "accessModes")
  return Array.isArray(all) ? all.map((m) => shortModes[String(m)] ?? String(m)).join(",") : ""
}

/** PersistentVolumeClaim. */
export const persistentVolumeClaim = defineKind({
  group: "",
  versions: ["v1"],
  kind: "PersistentVolumeClaim",
  listKind: "PersistentVolumeClaimList",
  plural: "persistentvolumeclaims",
  singular: "persistentvolumeclaim",
  shortNames: ["pvc"],
  namespaced: true,
  hasStatus: true,
  protobuf: { ...podMessages, ...persistentVolumeClaimMessages },
  protobufMessage: "core.v1.PersistentVolumeClaim",
  fields: persistentVolumeClaimFields,
  strategy: { defaults: claimDefaults, prepareForCreate: prepareClaim, validate: checkClaim },
  columns: [
    nameColumn,
    column("Status", "string", "The phase of the claim.", (o) => text(field(o, "status", "phase"))),
    column("Volume", "string", "The volume bound to the claim.", (o) => text(field(o, "spec", "volumeName")) ?? ""),
    column("Capacity", "string", "The capacity of the bound volume.", (o) => text(record(field(o, "status", "capacity"))["storage"]) ?? ""),
    column("Access Modes", "string", "The access modes of the bound volume.", modes),
    column("StorageClass", "string", "The storage class the claim asks for.", (o) => text(field(o, "spec", "storageClassName")) ?? "<unset>"),
    column("VolumeAttributesClass", "string", "The volume attributes class the claim asks for.", (o) => text(field(o, "spec", "volumeAttributesClassName")) ?? "<unset>"),
    ageColumn,
    column("VolumeMode", "string", "Whether the volume is a filesystem or a block device.", (o) => text(field(o, "spec", "volumeMode")) ?? "", 1)
  ],
  descriptions: {
    spec: "The storage the claim asks for.",
    "spec.accessModes": "How the volume may be mounted: ReadWriteOnce, ReadOnlyMany, ReadWriteMany or ReadWriteOncePod.",
    "spec.resources": "The storage requested (requests.storage).",
    "spec.storageClassName": "The storage class to provision from.",
    status: "The claim's phase and the bound volume's capacity."
  }
})
