// The default scheduler for the simulator's one node: a pod whose nodeSelector the node matches (or the
// labels Kueue's admission promised it) is bound to the node; one it does not match stays Pending with
// PodScheduled False and a FailedScheduling event, as the real scheduler leaves it.
import type { Controller, ControllerHost, KubeObject, SystemClient } from "../../Api.ts"
import { ChangeQueue, controllerKeyOf, keyOf, queuedController, splitKey } from "../shared/ChangeQueue.ts"
import { findCondition, readConditions } from "../shared/Conditions.ts"
import type { EventRecorder, EventReporter } from "../shared/Events.ts"
import { asArray, asString, at, isDeleting, labelsOf, nameOf } from "../shared/KubeFields.ts"
import { updateObject, updateStatus } from "../shared/StoreWrites.ts"
import { unschedulableStatus } from "../kubelet/PodStatuses.ts"
import { admittedNodeLabels } from "../trainer/PodTemplates.ts"
import { selectorMatches, unschedulableMessage, type SimNode } from "./Nodes.ts"
import { jobSetNameKey, replicatedJobNameKey } from "../../kinds/jobset/JobSetNames.ts"

// kube-scheduler records through events.k8s.io/v1 as its profile's scheduler name, its instance that
// name and its host's (kubeadm runs it on the control-plane node: here the one node).
const schedulerName = "default-scheduler"
const reporterFor = (node: SimNode, action: "Binding" | "Scheduling"): EventReporter => ({ api: "events.k8s.io/v1", controller: schedulerName, instance: `${schedulerName}-${node.name}`, action })

/** The TrainJob a pod runs for (through its JobSet), if any. */
export const trainJobOfPod = (system: SystemClient, pod: KubeObject): KubeObject | undefined => {
  const namespace = asString(at(pod, "metadata", "namespace")) ?? "default"
  const jobSetName = labelsOf(pod)[jobSetNameKey]
  const jobSet = jobSetName === undefined ? undefined : system.get("jobsets", namespace, jobSetName)
  const owner = jobSet === undefined ? undefined : controllerKeyOf(jobSet, "TrainJob")
  return owner === undefined ? undefined : system.get("trainjobs", namespace, splitKey(owner).name)
}

/** The scheduler for `node`, fed by the simulator's change feed: it looks at pods with no node yet. */
export const scheduler = (host: ControllerHost, events: EventRecorder, node: SimNode): Controller => {
  const queue = new ChangeQueue()
  host.onChange((change) => {
    if (change.resource !== "pods" || change.type === "DELETED" || isDeleting(change.object)) return
    if (at(change.object, "spec", "nodeName") === undefined) queue.add(keyOf(change.object))
  })
  const schedule = (system: SystemClient, pod: KubeObject): void => {
    if (at(pod, "spec", "nodeName") !== undefined || asArray(at(pod, "spec", "containers")).length === 0) return
    const trainJob = trainJobOfPod(system, pod)
    const admitted = trainJob === undefined ? {} : admittedNodeLabels(trainJob, labelsOf(pod)[replicatedJobNameKey] ?? "")
    if (!selectorMatches(pod["spec"], node, admitted)) {
      const scheduled = findCondition(readConditions(at(pod, "status", "conditions")), "PodScheduled")
      if (scheduled?.reason === "Unschedulable") return
      updateStatus(system, "pods", { ...pod, status: unschedulableStatus(pod, system.now()) })
      events.record(system, pod, "Warning", "FailedScheduling", unschedulableMessage, reporterFor(node, "Scheduling"))
      return
    }
    const bound = updateObject(system, "pods", { ...pod, spec: { ...(pod["spec"] as object), nodeName: node.name } })
    if (bound === undefined) return
    events.record(system, bound, "Normal", "Scheduled", `Successfully assigned ${at(pod, "metadata", "namespace")}/${nameOf(pod)} to ${node.name}`, reporterFor(node, "Binding"))
  }
  return queuedController(schedulerName, "pods", queue, schedule)
}
