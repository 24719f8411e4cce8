// The kubelet of the simulator's one node: a pod the scheduler bound to the node gets its containers
// started at once. A running pod of a TrainJob ends when its TrainJob's run ends (the run's clock lives
// in Trainer's controller): exit 0 when it completed; exit 1 for the trainer step's pods when it
// failed; killed (exit 137) when its deadline passed. What runs the containers is the ContainerRuntime
// given: by default the clock; with `exec`, local processes whose exits end the pods.
import type { Controller, ControllerHost, KubeObject, SystemClient } from "../../Api.ts"
import { ChangeQueue, ChildIndex, controllerKeyOf, keyOf, queuedController, splitKey } from "../shared/ChangeQueue.ts"
import { findCondition, isConditionTrue, readConditions } from "../shared/Conditions.ts"
import type { ContainerRuntime, RunFate } from "./ContainerRuntime.ts"
import type { EventRecorder } from "../shared/Events.ts"
import { asArray, asString, at, isDeleting, labelsOf, nameOf, sameJson } from "../shared/KubeFields.ts"
import { containersOf, runningStatus, terminatedStatus } from "./PodStatuses.ts"
import type { SimNode } from "../scheduler/Nodes.ts"
import { trainJobOfPod } from "../scheduler/Scheduler.ts"
import { updateStatus } from "../shared/StoreWrites.ts"
import { ancestorStepLabel, trainerContainerName } from "../shared/WellKnown.ts"
import { jobSetNameKey, replicatedJobNameKey } from "../../kinds/jobset/JobSetNames.ts"

const component = "kubelet"

const phaseOf = (pod: KubeObject): string => asString(at(pod, "status", "phase")) ?? "Pending"

// How a TrainJob's pod ends, once the TrainJob has: undefined while it runs.
const fateOf = (trainJob: KubeObject | undefined, isTrainerStep: boolean): RunFate | undefined => {
  if (trainJob === undefined) return undefined
  const conditions = readConditions(at(trainJob, "status", "conditions"))
  if (isConditionTrue(conditions, "Complete")) return { exitCode: 0 }
  const failed = findCondition(conditions, "Failed")
  if (failed?.status !== "True") return undefined
  if (failed.reason === "DeadlineExceeded") return { exitCode: 137, reason: "DeadlineExceeded", message: failed.message }
  return { exitCode: isTrainerStep ? 1 : 0 }
}

/** The kubelet for `node`, fed by the simulator's change feed, running containers on `runtime`. */
export const kubelet = (host: ControllerHost, events: EventRecorder, node: SimNode, runtime: ContainerRuntime): Controller => {
  const queue = new ChangeQueue()
  // Pods by `namespace/jobset name`: a TrainJob's change reaches the pods of its JobSet (named as it).
  const byJobSet = new ChildIndex()
  let podIps = 0
  host.onChange((change) => {
    if (change.resource === "pods") {
      const jobSet = labelsOf(change.object)[jobSetNameKey]
      byJobSet.track(jobSet === undefined ? undefined : `${at(change.object, "metadata", "namespace")}/${jobSet}`, nameOf(change.object), change.type !== "DELETED")
      if (change.type === "DELETED" || isDeleting(change.object)) runtime.stop(change.object)
      else queue.add(keyOf(change.object))
    } else if (change.resource === "trainjobs" && change.type === "MODIFIED") {
      const key = keyOf(change.object)
      for (const pod of byJobSet.of(key)) queue.add(`${splitKey(key).namespace}/${pod}`)
    }
  })

  runtime.onEnded((key) => queue.add(key))

  const isTrainerStep = (system: SystemClient, pod: KubeObject): boolean => {
    const owner = controllerKeyOf(pod, "Job")
    const job = owner === undefined ? undefined : system.get("jobs", splitKey(owner).namespace, splitKey(owner).name)
    const step = job === undefined ? undefined : labelsOf(job)[ancestorStepLabel]
    return step === undefined ? labelsOf(pod)[replicatedJobNameKey] === trainerContainerName : step === "trainer"
  }

  const reconcilePod = (system: SystemClient, pod: KubeObject): void => {
    const now = system.now()
    if (at(pod, "spec", "nodeName") !== node.name) return
    if (at(pod, "status", "phase") === undefined || phaseOf(pod) === "Pending") {
      const ip = `10.244.${Math.floor(++podIps / 250) % 250}.${(podIps % 250) + 2}`
      const running = updateStatus(system, "pods", { ...pod, status: runningStatus(pod, node, ip, now) })
      for (const container of containersOf(pod)) {
        events.record(system, pod, "Normal", "Pulled", `Container image "${container.image}" already present on machine`, component)
        events.record(system, pod, "Normal", "Created", `Created container: ${container.name}`, component)
        events.record(system, pod, "Normal", "Started", `Started container ${container.name}`, component)
      }
      if (running === undefined) return
      runtime.start(running)
      reconcilePod(system, running)
      return
    }
    if (phaseOf(pod) !== "Running") return
    const end = runtime.ended(pod, fateOf(trainJobOfPod(system, pod), isTrainerStep(system, pod)))
    if (end === undefined) return
    const status = terminatedStatus(pod, end.containers, now, end.reason, end.message)
    if (sameJson(status, pod["status"])) return
    if (end.reason === "DeadlineExceeded") {
      for (const container of containersOf(pod)) events.record(system, pod, "Normal", "Killing", `Stopping container ${container.name}`, component)
    }
    updateStatus(system, "pods", { ...pod, status })
  }

  return queuedController("kubelet", "pods", queue, (system, pod) => {
    if (asArray(at(pod, "spec", "containers")).length > 0) reconcilePod(system, pod)
  })
}
