import { setMaxListeners } from "node:events"
import { Cause, Effect, Exit, Layer, ManagedRuntime, Option, References } from "effect"
import { ErrUnreachable, InFlightMemory, type Cluster, type ClusterError, type InFlight, type StartError } from "@dispatch/effects"

/** How one cluster operation ended: its value, one of the six typed errors, or abandoned (the service is closing). */
export type ClusterRun<A> =
  | { readonly kind: "ok"; readonly value: A }
  | { readonly kind: "error"; readonly error: StartError }
  | { readonly kind: "abandoned"; readonly reason: string }

/** Runs dispatch's operations against one cluster, with one InFlight memory shared by Start, Find and Stop. */
export interface ClusterRuntime {
  readonly run: <A>(effect: Effect.Effect<A, StartError, Cluster | InFlight>) => Promise<ClusterRun<A>>
  /** Interrupts every operation still running and releases the cluster client. */
  readonly close: () => Promise<void>
}

const startErrorTags = new Set(["ErrInvalid", "ErrUnsupported", "ErrRejected", "ErrUnreachable", "ErrReadOnly", "ErrOutcomeUnknown"])

// A cluster layer that cannot be built (an unreadable kubeconfig) leaves the cluster unreachable, like a down server.
const errorOf = (failure: StartError | ClusterError): StartError =>
  startErrorTags.has(failure._tag) ? (failure as StartError) : new ErrUnreachable({ reasons: [`the cluster client could not be made: ${(failure as ClusterError).message}`] })

/** A runtime over `cluster` and an InFlight memory (this process's own unless given); operations log at Warn and
 * above only, unless `logLevel` says otherwise. */
export const makeClusterRuntime = (
  cluster: Layer.Layer<Cluster, ClusterError>,
  logLevel: "Warn" | "Info" | "Debug" = "Warn",
  inFlight: Layer.Layer<InFlight> = InFlightMemory
): ClusterRuntime => {
  const runtime = ManagedRuntime.make(Layer.merge(cluster, inFlight))
  const stopping = new AbortController()
  // Every operation in flight listens for the close; there are as many as the dispatcher's concurrency.
  setMaxListeners(0, stopping.signal)
  return {
    run: async (effect) => {
      if (stopping.signal.aborted) return { kind: "abandoned", reason: "the service is closing" }
      const exit = await runtime.runPromiseExit(Effect.provideService(effect, References.MinimumLogLevel, logLevel), { signal: stopping.signal })
      if (Exit.isSuccess(exit)) return { kind: "ok", value: exit.value }
      const failure = Cause.findErrorOption(exit.cause)
      if (Option.isSome(failure)) return { kind: "error", error: errorOf(failure.value) }
      return { kind: "abandoned", reason: Cause.hasInterruptsOnly(exit.cause) ? "interrupted" : String(Cause.squash(exit.cause)) }
    },
    close: async () => {
      stopping.abort()
      await runtime.dispose()
    }
  }
}

/** One cluster operation on `cluster`, from Effect code: how it ended, never a failure. */
export const runCluster = <A>(cluster: ClusterRuntime, effect: Effect.Effect<A, StartError, Cluster | InFlight>): Effect.Effect<ClusterRun<A>> =>
  Effect.promise(() => cluster.run(effect))
