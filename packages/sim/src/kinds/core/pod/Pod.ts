// core/v1 Pod: kubectl's NAME READY STATUS RESTARTS AGE (IP and NODE with -o wide), and the fields a
// pod can be selected by.
import type { KubeObject } from "../../../Api.ts"
import { defineKind, fieldAt } from "../../Kind.ts"
import { ageColumn, column, count, field, nameColumn, records, text } from "../../Columns.ts"
import { podMessages } from "./PodMessages.ts"

/** kubectl's pod STATUS: the pod's reason, else a container's waiting or terminated reason, else its phase. */
export const podStatusText = (pod: KubeObject): string => {
  if (field(pod, "metadata", "deletionTimestamp") !== undefined) return "Terminating"
  let reason = text(field(pod, "status", "reason")) ?? text(field(pod, "status", "phase")) ?? "Pending"
  for (const status of records(field(pod, "status", "containerStatuses"))) {
    const waiting = text(field(status, "state", "waiting", "reason"))
    const terminated = field(status, "state", "terminated")
    if (waiting !== null) reason = waiting
    else if (terminated !== undefined) reason = text(field(terminated, "reason")) ?? `ExitCode:${count(field(terminated, "exitCode"))}`
  }
  return reason
}

const selectable = ["spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork", "status.phase", "status.podIP", "status.nominatedNodeName"]

/** Pod. */
export const pod = defineKind({
  group: "",
  versions: ["v1"],
  kind: "Pod",
  listKind: "PodList",
  plural: "pods",
  singular: "pod",
  shortNames: ["po"],
  namespaced: true,
  protobuf: podMessages,
  protobufMessage: "core.v1.Pod",
  hasStatus: true,
  selectableFields: Object.fromEntries(selectable.map((f) => [f, fieldAt(f)])),
  columns: [
    nameColumn,
    column("Ready", "string", "The aggregate readiness state of this pod for accepting traffic.", (o) => {
      const statuses = records(field(o, "status", "containerStatuses"))
      const containers = field(o, "spec", "containers")
      return `${statuses.filter((s) => s["ready"] === true).length}/${Array.isArray(containers) ? containers.length : 0}`
    }),
    column("Status", "string", "The aggregate status of the containers in this pod.", podStatusText),
    column("Restarts", "string", "The number of times the containers in this pod have been restarted.", (o) =>
      String(records(field(o, "status", "containerStatuses")).reduce((sum, s) => sum + count(s["restartCount"]), 0))
    ),
    ageColumn,
    column("IP", "string", "The IP address assigned to the pod.", (o) => text(field(o, "status", "podIP")) ?? "<none>", 1),
    column("Node", "string", "The name of the node the pod is assigned to.", (o) => text(field(o, "spec", "nodeName")) ?? "<none>", 1)
  ]
})
