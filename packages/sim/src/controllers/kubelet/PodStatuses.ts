// A pod's status at each point of its life on the simulated node, as the scheduler and kubelet write
// it: Pending and unschedulable, Running with every container started and ready, or terminated with an
// exit code.
import type { KubeObject } from "../../Api.ts"
import { asArray, asRecord, asString, at, type JsonRecord } from "../shared/KubeFields.ts"
import { constants as osConstants } from "node:os"
import { unschedulableMessage, type SimNode } from "../scheduler/Nodes.ts"
import { formatTimestamp } from "../shared/Timestamps.ts"

/** The containers of a pod spec, by name and image. */
export const containersOf = (pod: KubeObject): ReadonlyArray<{ readonly name: string; readonly image: string }> =>
  asArray(at(pod, "spec", "containers")).map((entry) => ({ name: asString(at(entry, "name")) ?? "", image: asString(at(entry, "image")) ?? "" }))

const condition = (type: string, status: string, stamp: string, reason?: string, message?: string): JsonRecord => ({
  type,
  status,
  lastProbeTime: null,
  lastTransitionTime: stamp,
  ...(reason === undefined ? {} : { reason }),
  ...(message === undefined ? {} : { message })
})

const qosClass = (pod: KubeObject): string =>
  asArray(at(pod, "spec", "containers")).some((c) => Object.keys(asRecord(at(c, "resources", "requests")) ?? asRecord(at(c, "resources", "limits")) ?? {}).length > 0)
    ? "Burstable"
    : "BestEffort"

/** A Pending pod no node matches. */
export const unschedulableStatus = (pod: KubeObject, now: number): JsonRecord => ({
  phase: "Pending",
  conditions: [condition("PodScheduled", "False", formatTimestamp(now), "Unschedulable", unschedulableMessage)],
  qosClass: qosClass(pod)
})

const containerId = (pod: KubeObject, name: string): string => {
  const uid = asString(at(pod, "metadata", "uid")) ?? ""
  return `containerd://${(uid.replaceAll("-", "") + name).padEnd(64, "0").slice(0, 64)}`
}

/** A Running pod on `node`, its containers started at `startedAt`, with pod IP `podIp`. */
export const runningStatus = (pod: KubeObject, node: SimNode, podIp: string, startedAt: number): JsonRecord => {
  const stamp = formatTimestamp(startedAt)
  return {
    phase: "Running",
    conditions: ["PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"].map((type) => condition(type, "True", stamp)),
    hostIP: node.ip,
    hostIPs: [{ ip: node.ip }],
    podIP: podIp,
    podIPs: [{ ip: podIp }],
    startTime: stamp,
    qosClass: qosClass(pod),
    containerStatuses: containersOf(pod).map((c) => ({
      name: c.name,
      image: c.image,
      imageID: c.image,
      containerID: containerId(pod, c.name),
      ready: true,
      started: true,
      restartCount: 0,
      state: { running: { startedAt: stamp } },
      lastState: {}
    }))
  }
}

/** How one container exited: its code, and the signal that killed it, if any. */
export interface ExitCode {
  readonly exitCode: number
  readonly signal?: string
}

/**
 * The pod's status once its containers exited at `finishedAt`, each as `exits` says (a container it
 * does not name exited 0); the pod succeeded when every one exited 0. Reason and message on the pod, if any.
 */
export const terminatedStatus = (
  pod: KubeObject,
  exits: Readonly<Record<string, ExitCode>>,
  finishedAt: number,
  podReason?: string,
  podMessage?: string
): JsonRecord => {
  const status = asRecord(pod["status"]) ?? {}
  const stamp = formatTimestamp(finishedAt)
  const succeeded = containersOf(pod).every((c) => (exits[c.name]?.exitCode ?? 0) === 0)
  const conditions = asArray(status["conditions"]).map((entry) => {
    const c = asRecord(entry) ?? {}
    return c["type"] === "Ready" || c["type"] === "ContainersReady" || c["type"] === "PodReadyToStartContainers"
      ? condition(String(c["type"]), "False", stamp, c["type"] === "PodReadyToStartContainers" ? undefined : succeeded ? "PodCompleted" : "PodFailed")
      : c
  })
  return {
    ...status,
    phase: succeeded ? "Succeeded" : "Failed",
    ...(podReason === undefined ? {} : { reason: podReason }),
    ...(podMessage === undefined ? {} : { message: podMessage }),
    conditions,
    containerStatuses: asArray(status["containerStatuses"]).map((entry) => {
      const c = asRecord(entry) ?? {}
      const startedAt = asString(at(c, "state", "running", "startedAt")) ?? stamp
      const exit = exits[asString(c["name"]) ?? ""] ?? { exitCode: 0 }
      const terminated = {
        exitCode: exit.exitCode,
        ...(exit.signal === undefined ? {} : { signal: signalNumber(exit.signal) }),
        reason: exit.exitCode === 0 ? "Completed" : "Error",
        startedAt,
        finishedAt: stamp,
        containerID: c["containerID"]
      }
      return { ...c, ready: false, started: false, state: { terminated } }
    })
  }
}

const signalNumber = (signal: string): number => (osConstants.signals as Readonly<Record<string, number>>)[signal] ?? 0
