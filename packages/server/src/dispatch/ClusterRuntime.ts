import { Cause, Deferred, Effect, Exit, Layer, ManagedRuntime, Option, References } from "effect"
import { ErrUnreachable, InFlightMemory, type Cluster, type ClusterError, type InFlight, type StartError } from "@dispatch/effects"

/** How one cluster operation ended: its value, one of the six typed errors, or abandoned (the service is closing). */
export type ClusterRun<A> =
  | { readonly kind: "ok"; readonly value: A }
  | { readonly kind: "error"; readonly error: StartError }
  | { readonly kind: "abandoned"; readonly reason: string }

/** Runs dispatch's operations against one cluster, with one InFlight memory shared by Start, Find and Stop. */
export interface ClusterRuntime {
  /** One operation, run in the caller's fiber: how it ended, never a failure. */
  readonly run: <A>(effect: Effect.Effect<A, StartError, Cluster | InFlight>) => Effect.Effect<ClusterRun<A>>
  /** Ends every operation still running (each ends as abandoned) and releases the cluster client. */
  readonly close: Effect.Effect<void>
}

const startErrorTags = new Set(["ErrInvalid", "ErrUnsupported", "ErrRejected", "ErrUnreachable", "ErrReadOnly", "ErrOutcomeUnknown"])

// A cluster layer that cannot be built (an unreadable kubeconfig) leaves the cluster unreachable, like a down server.
const errorOf = (failure: StartError | ClusterError): StartError =>
  startErrorTags.has(failure._tag)
    ? (failure as StartError)
    : new ErrUnreachable({ reasons: (failure as ClusterError).reasons.map((reason) => `the cluster client could not be made: ${reason}`) })

const closed: ClusterRun<never> = { kind: "abandoned", reason: "the service is closing" }

const runOf = <A>(exit: Exit.Exit<A, StartError | ClusterError>): ClusterRun<A> => {
  if (Exit.isSuccess(exit)) return { kind: "ok", value: exit.value }
  const failure = Cause.findErrorOption(exit.cause)
  if (Option.isSome(failure)) return { kind: "error", error: errorOf(failure.value) }
  return { kind: "abandoned", reason: Cause.hasInterruptsOnly(exit.cause) ? "interrupted" : String(Cause.squash(exit.cause)) }
}

/** A runtime over `cluster` and an InFlight memory (this process's own unless given); operations log at Warn and
 * above only, unless `logLevel` says otherwise. The cluster's layer is built when the first operation needs it. */
export const makeClusterRuntime = (
  cluster: Layer.Layer<Cluster, ClusterError>,
  logLevel: "Warn" | "Info" | "Debug" = "Warn",
  inFlight: Layer.Layer<InFlight> = InFlightMemory
): ClusterRuntime => {
  const runtime = ManagedRuntime.make(Layer.merge(cluster, inFlight))
  const closing = Deferred.makeUnsafe<void>()
  return {
    // The operation runs interruptibly (its caller may be a pass that is not) and is ended when the runtime closes.
    run: <A>(effect: Effect.Effect<A, StartError, Cluster | InFlight>) =>
      Effect.gen(function* () {
        if (Deferred.isDoneUnsafe(closing)) return closed as ClusterRun<A>
        const services = yield* Effect.exit(runtime.contextEffect)
        if (Exit.isFailure(services)) return runOf<A>(Exit.failCause(services.cause))
        const operation = Effect.exit(Effect.interruptible(Effect.provideContext(Effect.provideService(effect, References.MinimumLogLevel, logLevel), services.value)))
        const ended = yield* Effect.raceFirst(operation, Effect.interruptible(Effect.as(Deferred.await(closing), "closed" as const)))
        return ended === "closed" ? ({ kind: "abandoned", reason: "interrupted" } as ClusterRun<A>) : runOf(ended)
      }),
    close: Effect.andThen(Deferred.done(closing, Exit.void), runtime.disposeEffect)
  }
}
