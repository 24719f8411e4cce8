// The pods of a TrainJob, through the pluggable Cluster: found by the JobSet label Trainer's JobSet gives
// them, each with its node's index; their logs are read with Cluster.podLog.
import { arrayAt, stringAt } from "@dispatch/kube"
import { Effect } from "effect"
import { Cluster } from "./Cluster.ts"
import type { ClusterError } from "./ClusterError.ts"
import { Pods } from "./ResourceKind.ts"

/** One pod of a TrainJob: its name, its node's index, and its containers (the first is the trainer's). */
export interface TrainJobPod {
  readonly name: string
  readonly node: number
  readonly containers: ReadonlyArray<string>
}

// An indexed Job's completion index is the node's rank; a JobSet with one Job per node numbers them instead.
const nodeIndexOf = (labels: Readonly<Record<string, string>>): number => {
  const jobIndex = Number(labels["jobset.sigs.k8s.io/job-index"] ?? 0)
  const completion = labels["batch.kubernetes.io/job-completion-index"]
  return completion === undefined ? jobIndex : Number(completion) + jobIndex
}

const containersOf = (spec: unknown): ReadonlyArray<string> =>
  arrayAt(spec, ["containers"]).flatMap((c) => {
    const name = stringAt(c, ["name"])
    return name === undefined ? [] : [name]
  })

/** The pods of `trainJob` in `namespace`, by node index (the newest pod of a node when it was replaced). */
export const trainJobPods = (namespace: string, trainJob: string): Effect.Effect<ReadonlyArray<TrainJobPod>, ClusterError, Cluster> =>
  Effect.gen(function* () {
    const cluster = yield* Cluster
    const listed = yield* cluster.list(Pods, namespace, `jobset.sigs.k8s.io/jobset-name=${trainJob}`)
    const byNode = new Map<number, { readonly pod: TrainJobPod; readonly created: number }>()
    for (const item of listed) {
      const name = item.metadata.name
      const containers = containersOf(item["spec"])
      if (name === undefined || containers.length === 0) continue
      const node = nodeIndexOf(item.metadata.labels ?? {})
      const stamp = item.metadata["creationTimestamp"]
      const created = typeof stamp === "string" ? Date.parse(stamp) : 0
      const known = byNode.get(node)
      if (known === undefined || known.created <= created) byNode.set(node, { pod: { name, node, containers }, created })
    }
    return [...byNode.values()].map((v) => v.pod).sort((a, b) => a.node - b.node)
  })
