// A simulator resumed from its state directory with exec on: the processes its pods ran ended with the
// process that ran them (or live on, orphaned, out of its reach), so no container it finds Running is
// running here. As a kubelet that comes back and cannot find a container, it marks each one terminated,
// exit 137, so the pod fails and its Job, JobSet and TrainJob follow instead of waiting forever.
import type { SystemClient } from "../../Api.ts"
import { asString, at } from "../shared/KubeFields.ts"
import { containersOf, terminatedStatus } from "./PodStatuses.ts"

/** The reason a lost container's pod carries, as the kubelet names a container it cannot locate. */
export const lostContainerReason = "ContainerStatusUnknown"

/** Marks every Running pod's containers terminated (exit 137, ContainerStatusUnknown); returns how many pods. */
export const failLostContainers = (system: SystemClient, now: number): number => {
  const running = system.list("pods").filter((pod) => asString(at(pod, "status", "phase")) === "Running")
  for (const pod of running) {
    const exits = Object.fromEntries(containersOf(pod).map((c) => [c.name, { exitCode: 137 }]))
    const message = "The container could not be located when the simulator resumed: its process ended with the one that ran it"
    system.updateStatus("pods", { ...pod, status: terminatedStatus(pod, exits, now, lostContainerReason, message) })
  }
  return running.length
}
