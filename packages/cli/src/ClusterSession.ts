// The cluster a command talks to, made from its options: client-node with a kubeconfig (or the default
// chain), or an embedded simulator seeded from runtime files that lives as long as the command.
import { Effect, Layer, Result } from "effect"
import type { BackendConfig } from "@dispatch/render"
import { Cluster, type ClusterError, InFlight, InFlightMemory, loadKubeConfig, makeKubeCluster, SimCluster } from "@dispatch/effects"
import type { Simulator } from "@dispatch/sim"
import { BundledExamples } from "./BundledExamples.ts"
import type { CliIo } from "./CliIo.ts"
import type { ClusterTarget } from "./ClusterArgs.ts"
import { type Failure, usage } from "./Failure.ts"
import { loadManifests } from "./Inputs.ts"
import { controllersForConfig, seededSimulator } from "./SimSeed.ts"

/** What a command's programs run against: the Cluster and InFlight services, and the simulator if embedded. */
export interface ClusterSession {
  readonly layer: Layer.Layer<Cluster | InFlight, ClusterError>
  readonly simulator?: Simulator
}

/** Opens the session `target` names for a backend configured by `config`. */
export const openSession = async (io: CliIo, target: ClusterTarget, config: BackendConfig): Promise<Result.Result<ClusterSession, Failure>> => {
  const callMs = config.timeouts.callMs
  if (target._tag === "Kube") {
    // A kubeconfig that cannot be used is a bad input file, like any other the command names.
    const loaded = await Effect.runPromise(Effect.result(loadKubeConfig(target.kubeconfig)))
    if (Result.isFailure(loaded)) return Result.fail(usage(loaded.failure.reasons))
    return Result.succeed({ layer: Layer.merge(Layer.succeed(Cluster, makeKubeCluster(loaded.success, callMs)), InFlightMemory) })
  }
  const manifests = await loadManifests(io, target.runtimes.length > 0 ? target.runtimes : [BundledExamples.runtime])
  if (Result.isFailure(manifests)) return Result.fail(manifests.failure)
  const seeded = seededSimulator({ controllers: controllersForConfig(config) }, manifests.success, [config.namespace])
  if ("problems" in seeded) return Result.fail(usage(seeded.problems))
  return Result.succeed({ layer: Layer.merge(SimCluster(seeded.simulator, { callMs }), InFlightMemory), simulator: seeded.simulator })
}
