// The fields a field selector may name beyond metadata.name and metadata.namespace, per resource, as
// the real server's registries allow them (custom resources allow only those two).
import { valueAt } from "@dispatch/kube"

const byPlural: Readonly<Record<string, ReadonlyArray<string>>> = {
  pods: ["spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName"],
  events: [
    "involvedObject.kind",
    "involvedObject.namespace",
    "involvedObject.name",
    "involvedObject.uid",
    "involvedObject.apiVersion",
    "involvedObject.resourceVersion",
    "involvedObject.fieldPath",
    "reason",
    "reportingComponent",
    "source",
    "type"
  ],
  jobs: ["status.successful"],
  namespaces: ["status.phase"]
}

/** The extra fields `plural` can be selected by. */
export const selectableFields = (plural: string | undefined): ReadonlyArray<string> => (plural === undefined ? [] : (byPlural[plural] ?? []))

/** The value a selectable field has on an object, as the field selector compares it (a string; "" when absent). */
export const selectableValue = (object: unknown, field: string): string => {
  // Events select `source` by its component; jobs `status.successful` by their succeeded count.
  const path = field === "source" ? ["source", "component"] : field === "status.successful" ? ["status", "succeeded"] : field.split(".")
  const value = valueAt(object, path)
  return value === undefined || value === null ? (field === "status.successful" ? "0" : "") : String(value)
}
