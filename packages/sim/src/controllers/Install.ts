// Installs the simulated Trainer and Kueue into a simulator, as its options say.
import type { ControllerHost } from "../Api.ts"
import { clockRuntime, type ContainerRuntime } from "./kubelet/ContainerRuntime.ts"
import { eventRecorder } from "./shared/Events.ts"
import { inTurn } from "./shared/InTurn.ts"
import { jobController } from "./job/JobController.ts"
import { jobSetController } from "./jobset/JobSetController.ts"
import { kubelet } from "./kubelet/Kubelet.ts"
import { kueueController } from "./kueue/KueueController.ts"
import { kueueTrainJobWebhook, kueueWorkloadWebhook } from "./kueue/KueueWebhook.ts"
import type { ControllerOptions, WorkloadOptions } from "./Options.ts"
import { defaultNode, type SimNode } from "./scheduler/Nodes.ts"
import { scheduler } from "./scheduler/Scheduler.ts"
import { processRuntime } from "./kubelet/ProcessRuntime.ts"
import { trainerController } from "./trainer/TrainerController.ts"
import { trainJobWebhook } from "./trainer/TrainJobWebhook.ts"

/**
 * Installs the simulator's Trainer and Kueue controllers and their admission webhooks; returns what
 * runs the pods' containers (the clock, unless the workload options ask for `exec`).
 */
export const installControllers = (host: ControllerHost, options: ControllerOptions | undefined): ContainerRuntime => {
  const kueue = options?.kueue
  // Kueue's mutating webhook runs before Trainer's validating one, as mutating webhooks do on a real server.
  if (kueue !== undefined && kueue.installed !== false) {
    host.addAdmission(kueueTrainJobWebhook)
    host.addAdmission(kueueWorkloadWebhook)
  }
  const trainer = options?.trainer ?? {}
  if (trainer.installed !== false) {
    host.addAdmission(trainJobWebhook)
  }
  const workloads = options?.workloads ?? {}
  const tree = workloads.installed !== false && trainer.installed !== false
  const node = nodeOf(workloads)
  const exec = tree && workloads.exec !== undefined && workloads.exec !== false
  const trainerOne = trainer.installed === false ? [] : [trainerController(trainer, tree, (listener) => host.onChange(listener))]
  const kueueOne = kueue === undefined || kueue.installed === false ? [] : [kueueController(kueue)]
  if (!tree) {
    for (const controller of [...trainerOne, ...kueueOne]) host.addController(controller)
    return clockRuntime
  }
  const events = eventRecorder()
  const runtime = exec ? processRuntime(workloads.exec === true ? {} : workloads.exec || {}, () => host.now()) : clockRuntime
  // The tree's controllers react to each other within a step, so a pod's end reaches its TrainJob at once.
  host.addController(
    inTurn("workloads", host, [
      ...trainerOne,
      ...kueueOne,
      jobSetController(host),
      jobController(host, events),
      scheduler(host, events, node),
      kubelet(host, events, node, runtime, exec ? undefined : trainer)
    ], kueueOne, () => {
      const trainerController = trainerOne[0]
      if (trainerController !== undefined) trainerController.afterStep(host.clientOf(trainerController))
    })
  )
  return runtime
}

const nodeOf = (options: WorkloadOptions): SimNode => {
  const name = options.nodeName ?? defaultNode.name
  return { ...defaultNode, name, labels: options.nodeLabels ?? { ...defaultNode.labels, "kubernetes.io/hostname": name } }
}
