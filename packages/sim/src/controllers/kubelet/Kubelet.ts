// The kubelet of the simulator's one node: a pod the scheduler bound to the node gets its containers
// started at once, and the pod ends when its containers exit. What runs them is the ContainerRuntime
// given: with `exec`, local processes whose exits end the pods; by default the clock, where a pod runs
// for its TrainJob's scripted run time and exits as the script says (ClockRuns.ts). The Job, JobSet and
// Trainer controllers derive their conditions from these ends. Two ends come from above, as on a real
// cluster: when Trainer fails a TrainJob past its active deadline, its pods are killed (exit 137,
// reason DeadlineExceeded; Trainer deletes the JobSet there, the simulator keeps the pods to show);
// when a TrainJob failed, its pods still running are stopped.
import type { Controller, ControllerHost, KubeObject, SystemClient } from "../../Api.ts"
import { ChangeQueue, ChildIndex, controllerKeyOf, keyOf, queuedController, splitKey } from "../shared/ChangeQueue.ts"
import { findCondition, readConditions } from "../shared/Conditions.ts"
import type { TrainerOptions } from "../Options.ts"
import { clockRunOf } from "./ClockRuns.ts"
import type { ContainerRuntime, RunFate } from "./ContainerRuntime.ts"
import type { EventRecorder, EventReporter } from "../shared/Events.ts"
import { asArray, asString, at, isDeleting, labelsOf, nameOf, sameJson } from "../shared/KubeFields.ts"
import { containersOf, runningStatus, terminatedStatus } from "./PodStatuses.ts"
import type { SimNode } from "../scheduler/Nodes.ts"
import { trainJobOfPod } from "../scheduler/Scheduler.ts"
import { updateStatus } from "../shared/StoreWrites.ts"
import { ancestorStepLabel, trainerContainerName } from "../shared/WellKnown.ts"
import { jobSetNameKey, replicatedJobNameKey } from "../../kinds/jobset/JobSetNames.ts"


const phaseOf = (pod: KubeObject): string => asString(at(pod, "status", "phase")) ?? "Pending"

// How a TrainJob's pod is ended from above, once the TrainJob failed: undefined while it may run.
const stoppedBy = (trainJob: KubeObject | undefined): RunFate | undefined => {
  const failed = findCondition(readConditions(at(trainJob, "status", "conditions")), "Failed")
  if (failed?.status !== "True") return undefined
  if (failed.reason === "DeadlineExceeded") return { exitCode: 137, reason: "DeadlineExceeded", message: failed.message }
  return { exitCode: 0 }
}

/**
 * The kubelet for `node`, fed by the simulator's change feed, running containers on `runtime`; with
 * `clock` (Trainer's options), containers run on the clock as the TrainJob's script says.
 */
export const kubelet = (host: ControllerHost, events: EventRecorder, node: SimNode, runtime: ContainerRuntime, clock?: TrainerOptions): Controller => {
  // The kubelet's recorder names its node as the source's host, which is the reporting instance.
  const component: EventReporter = { api: "core/v1", component: "kubelet", host: node.name }
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

  // The clock's end of a running pod, once it is due; until then, the pod is looked at again when it is.
  const clockFate = (system: SystemClient, pod: KubeObject, trainJob: KubeObject | undefined, now: number): RunFate | undefined => {
    if (clock === undefined || trainJob === undefined) return undefined
    const run = clockRunOf(clock, trainJob, isTrainerStep(system, pod))
    if (run === undefined) return undefined
    if (now >= run.endsAt) return { exitCode: run.exitCode }
    // A scripted function may answer otherwise at the next step, as Trainer's clock would have asked it.
    queue.addAt(keyOf(pod), typeof clock.outcomes === "function" ? now + 1 : run.endsAt)
    return undefined
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
    const trainJob = trainJobOfPod(system, pod)
    const end = runtime.ended(pod, stoppedBy(trainJob) ?? clockFate(system, pod, trainJob, now))
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
