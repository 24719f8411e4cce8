// The logs of a TrainJob's pods over a real API server: its pods found by the JobSet label Trainer's
// JobSet gives them, each one's node index, and each pod's log read (or followed) line by line.
import { Writable } from "node:stream"
import type { KubeConfig } from "@kubernetes/client-node"
import { clientNode } from "./KubeCluster.ts"

/** One pod of a TrainJob: its name, its node's index, and the container whose log is read. */
export interface TrainJobPod {
  readonly name: string
  readonly node: number
  readonly container: string
}

/** How a pod's log is read, as kubectl logs takes it. */
export interface PodLogOptions {
  readonly follow: boolean
  readonly tailLines?: number
  readonly previous: boolean
}

// An indexed Job's completion index is the node's rank; a JobSet with one Job per node numbers them instead.
const nodeIndexOf = (labels: Readonly<Record<string, string>>): number => {
  const jobIndex = Number(labels["jobset.sigs.k8s.io/job-index"] ?? 0)
  const completion = labels["batch.kubernetes.io/job-completion-index"]
  return completion === undefined ? jobIndex : Number(completion) + jobIndex
}

/** The pods of `trainJob` in `namespace`, by node index (the newest pod of a node when it was replaced). */
export const trainJobPods = async (config: KubeConfig, namespace: string, trainJob: string): Promise<ReadonlyArray<TrainJobPod>> => {
  const { CoreV1Api } = await clientNode()
  const listed = await config.makeApiClient(CoreV1Api).listNamespacedPod({ namespace, labelSelector: `jobset.sigs.k8s.io/jobset-name=${trainJob}` })
  const byNode = new Map<number, { readonly pod: TrainJobPod; readonly created: number }>()
  for (const item of listed.items) {
    const name = item.metadata?.name
    const container = item.spec?.containers[0]?.name
    if (name === undefined || container === undefined) continue
    const node = nodeIndexOf(item.metadata?.labels ?? {})
    const created = item.metadata?.creationTimestamp === undefined ? 0 : new Date(item.metadata.creationTimestamp).getTime()
    const known = byNode.get(node)
    if (known === undefined || known.created <= created) byNode.set(node, { pod: { name, node, container }, created })
  }
  return [...byNode.values()].map((v) => v.pod).sort((a, b) => a.node - b.node)
}

/** Reads one pod's log, calling `onLine` for each line; with `follow`, until the container ends or `signal` aborts. */
export const readPodLog = (config: KubeConfig, namespace: string, pod: TrainJobPod, options: PodLogOptions, onLine: (line: string) => void, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    let pending = ""
    const sink = new Writable({
      write(chunk: Buffer | string, _encoding, callback) {
        pending += chunk.toString()
        const lines = pending.split("\n")
        pending = lines.pop() ?? ""
        for (const line of lines) onLine(line)
        callback()
      },
      final(callback) {
        if (pending !== "") onLine(pending)
        callback()
      }
    })
    sink.on("finish", () => resolve())
    clientNode()
      .then(({ Log }) =>
        new Log(config).log(namespace, pod.name, pod.container, sink, {
          follow: options.follow,
          previous: options.previous,
          ...(options.tailLines === undefined ? {} : { tailLines: options.tailLines })
        })
      )
      .then((controller) => {
        if (signal === undefined) return
        const stop = () => {
          controller.abort()
          resolve()
        }
        if (signal.aborted) stop()
        else signal.addEventListener("abort", stop, { once: true })
      }, reject)
  })
