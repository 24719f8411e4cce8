// Installs the simulated Trainer and Kueue into a simulator, as its options say.
import type { ControllerHost } from "../Api.ts"
import { clockRuntime, type ContainerRuntime } from "./kubelet/ContainerRuntime.ts"
import { eventRecorder } from "./shared/Events.ts"
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
  if (trainer.installed !== false) host.addController(trainerController(trainer, tree ? node : undefined, exec, (listener) => host.onChange(listener)))
  if (kueue !== undefined && kueue.installed !== false) host.addController(kueueController(kueue))
  if (tree) {
    const events = eventRecorder()
    host.addController(jobSetController(host))
    host.addController(jobController(host, events))
    const runtime = exec ? processRuntime(workloads.exec === true ? {} : workloads.exec || {}, () => host.now()) : clockRuntime
    host.addController(scheduler(host, events, node))
    host.addController(kubelet(host, events, node, runtime))
    return runtime
  }
  return clockRuntime
}

const nodeOf = (options: WorkloadOptions): SimNode => {
  const name = options.nodeName ?? defaultNode.name
  return { ...defaultNode, name, labels: options.nodeLabels ?? { ...defaultNode.labels, "kubernetes.io/hostname": name } }
}
