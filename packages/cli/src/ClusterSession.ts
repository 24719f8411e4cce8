// The cluster a command talks to, made from its options: client-node with a kubeconfig (or the default
// chain), or an embedded simulator seeded from runtime files that lives as long as the command.
import { Effect, Layer, Result } from "effect"
import type { BackendConfig } from "@dispatch/render"
import { Cluster, type ClusterError, InFlight, InFlightMemory, loadKubeConfig, makeKubeCluster } from "@dispatch/effects"
import { SimCluster } from "@dispatch/sim/cluster"
import type { Simulator, StoreJournal } from "@dispatch/sim"
import { BundledExamples } from "./BundledExamples.ts"
import type { CliIo } from "./CliIo.ts"
import type { ClusterTarget } from "./ClusterArgs.ts"
import { type Failure, failed, usage } from "./Failure.ts"
import { loadManifests } from "./Inputs.ts"
import { controllersForConfig, seededSimulator } from "./SimSeed.ts"

/** How a command's waits are shown and bounded: progress on stderr past a second, `--timeout`. */
export interface WaitWatch {
  readonly io: CliIo
  readonly command: string
  readonly timeoutMs?: number
  /** What a wait cut short by --timeout is: a write may have happened (ErrOutcomeUnknown), a read did not answer (ErrUnreachable). */
  readonly timeoutKind: "ErrOutcomeUnknown" | "ErrUnreachable"
}

/** What a command's programs run against: the Cluster and InFlight services, and the simulator if embedded. */
export interface ClusterSession {
  readonly layer: Layer.Layer<Cluster | InFlight, ClusterError>
  readonly simulator?: Simulator
  /** The API server a kubeconfig named, for errors that say which server could not be reached. */
  readonly server?: string
  readonly watch?: WaitWatch
  /** Ends what the session started: with an embedded `--exec` simulator, every container process. */
  readonly close: () => Promise<void>
}

/** client-node's KubeConfig, as the effects package loads it. */
type KubeConfig = Effect.Success<ReturnType<typeof loadKubeConfig>>

/** A kubeconfig (`path`, else client-node's chain: KUBECONFIG, ~/.kube/config, in-cluster) at `context`,
 * else its current context. A file that cannot be read says so; one that cannot be used is a bad input file. */
export const loadKube = async (io: CliIo, path: string | undefined, context: string | undefined): Promise<Result.Result<KubeConfig, Failure>> => {
  if (path !== undefined) {
    const read = await io.readFile(path)
    if ("error" in read) return Result.fail(usage([`cannot read kubeconfig ${path}: ${read.error}`]))
  }
  const loaded = await Effect.runPromise(Effect.result(loadKubeConfig(path)))
  if (Result.isFailure(loaded)) return Result.fail(usage(loaded.failure.reasons))
  const config = loaded.success
  if (context !== undefined) {
    if (config.getContextObject(context) === null) {
      return Result.fail(usage([`--context "${context}": no such context in kubeconfig ${path ?? "(default chain)"}; it has ${config.getContexts().map((c) => c.name).join(", ") || "none"}`]))
    }
    config.setCurrentContext(context)
    if (config.getCurrentCluster() === null) return Result.fail(usage([`--context "${context}" names no cluster in kubeconfig ${path ?? "(default chain)"}`]))
  }
  return Result.succeed(config)
}

/** Opens the session `target` names for a backend configured by `config`; an embedded simulator keeps its state in `journal` when given. */
export const openSession = async (io: CliIo, target: ClusterTarget, config: BackendConfig, journal?: StoreJournal): Promise<Result.Result<ClusterSession, Failure>> => {
  const callMs = config.timeouts.callMs
  if (target._tag === "Kube") {
    // A kubeconfig that cannot be used is a bad input file, like any other the command names.
    const loaded = await loadKube(io, target.kubeconfig, target.context)
    if (Result.isFailure(loaded)) return Result.fail(loaded.failure)
    const server = loaded.success.getCurrentCluster()?.server
    return Result.succeed({ layer: Layer.merge(Layer.succeed(Cluster, makeKubeCluster(loaded.success, callMs)), InFlightMemory), close: () => Promise.resolve(), ...(server === undefined ? {} : { server }) })
  }
  const manifests = await loadManifests(io, target.runtimes.length > 0 ? target.runtimes : [BundledExamples.runtime])
  if (Result.isFailure(manifests)) return Result.fail(manifests.failure)
  const seeded = seededSimulator({ controllers: controllersForConfig(config, { exec: target.exec === true }), ...(journal === undefined ? {} : { journal }) }, manifests.success, [config.namespace])
  if ("problems" in seeded) return Result.fail(seeded.unusableState === true ? failed(seeded.problems) : usage(seeded.problems))
  return Result.succeed({ layer: Layer.merge(SimCluster(seeded.simulator, { callMs }), InFlightMemory), simulator: seeded.simulator, close: () => seeded.simulator.close() })
}
