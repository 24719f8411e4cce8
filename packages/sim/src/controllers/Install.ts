// Installs the simulated Trainer and Kueue into a simulator, as its options say.
import type { ControllerHost } from "../Api.ts"
import { clockRuntime, type ContainerRuntime } from "./ContainerRuntime.ts"
import { eventRecorder } from "./Events.ts"
import { jobController } from "./JobController.ts"
import { jobSetController } from "./JobSetController.ts"
import { kubelet } from "./Kubelet.ts"
import { kueueController } from "./KueueController.ts"
import { kueueTrainJobWebhook, kueueWorkloadWebhook } from "./KueueWebhook.ts"
import type { ControllerOptions, WorkloadOptions } from "./Options.ts"
import { defaultNode, type SimNode } from "./PodStatuses.ts"
import { processRuntime } from "./ProcessRuntime.ts"
import { trainerController } from "./TrainerController.ts"
import { trainJobWebhook } from "./TrainJobWebhook.ts"

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
    host.addController(kubelet(host, events, node, runtime))
    return runtime
  }
  return clockRuntime
}

const nodeOf = (options: WorkloadOptions): SimNode => {
  const name = options.nodeName ?? defaultNode.name
  return { ...defaultNode, name, labels: options.nodeLabels ?? { ...defaultNode.labels, "kubernetes.io/hostname": name } }
}
