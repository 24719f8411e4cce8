// The node the simulator's pods run on, and whether a pod's nodeSelector lets it run there.
import { asRecord, at } from "../shared/KubeFields.ts"

/** The single node pods run on. */
export interface SimNode {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly ip: string
}

/** The node used when the options name none. */
export const defaultNode: SimNode = {
  name: "sim-node",
  labels: { "kubernetes.io/hostname": "sim-node", "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64" },
  ip: "10.0.0.1"
}

/** Whether the pod's nodeSelector matches the node's labels (plus those Kueue's admission promised). */
export const selectorMatches = (podSpec: unknown, node: SimNode, admitted: Readonly<Record<string, string>> = {}): boolean =>
  Object.entries(asRecord(at(podSpec, "nodeSelector")) ?? {}).every(([key, value]) => node.labels[key] === value || admitted[key] === value)

/** The scheduler's message for a pod no node matches. */
export const unschedulableMessage = "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
