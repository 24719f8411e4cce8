// Runs an Effect program of the effects package and turns its outcome into a command's result: the
// six error kinds keep their kind, reasons and reference; a cluster that cannot even be set up
// (kubeconfig unreadable) is ErrUnreachable; anything else is a failure with its message.
import { Effect, References, Result } from "effect"
import { ErrorKinds, type ErrorKind } from "@dispatch/render"
import type { Cluster, InFlight } from "@dispatch/effects"
import type { ClusterSession } from "./ClusterSession.ts"
import { withFastClock } from "./FastClock.ts"
import { showingProgress } from "./WaitProgress.ts"
import { type Failure, type FailureRef, failed, refused } from "./Failure.ts"

interface TaggedFailure {
  readonly _tag: string
  readonly reasons?: ReadonlyArray<string>
  readonly ref?: FailureRef
}

const isErrorKind = (tag: string): tag is ErrorKind => (ErrorKinds as ReadonlyArray<string>).includes(tag)

/** The command failure an effects error stands for. */
export const failureOfError = (error: unknown): Failure => {
  const tagged = (typeof error === "object" && error !== null ? error : {}) as Partial<TaggedFailure>
  const reasons = Array.isArray(tagged.reasons) ? tagged.reasons : [String(error)]
  if (typeof tagged._tag === "string" && isErrorKind(tagged._tag)) return refused(tagged._tag, reasons, tagged.ref)
  if (tagged._tag === "ClusterError") return refused("ErrUnreachable", reasons)
  return failed(reasons)
}

/** `effect` with the session's wait shown past a second and cut short at its --timeout. */
const watched = <A, E, E2, R>(session: ClusterSession, effect: Effect.Effect<Result.Result<A, E>, E2, R>): Effect.Effect<Result.Result<A, E | TaggedFailure>, E2, R> => {
  const watch = session.watch
  if (watch === undefined) return effect
  const shown = showingProgress(watch.io, watch.command)(effect)
  const timeoutMs = watch.timeoutMs
  if (timeoutMs === undefined) return shown
  const reason =
    watch.timeoutKind === "ErrOutcomeUnknown"
      ? `no answer within --timeout ${timeoutMs / 1000} s; the change may or may not have been made`
      : `no answer within --timeout ${timeoutMs / 1000} s`
  return Effect.timeoutOrElse(shown, { duration: timeoutMs, orElse: () => Effect.succeed(Result.fail<TaggedFailure>({ _tag: watch.timeoutKind, reasons: [reason] })) })
}

/**
 * Runs `program` in `session`, quietly (the effects' own log lines are for services, not terminals),
 * with the Clock `speed` times faster than real time (an embedded simulator follows it).
 */
export const runProgram = async <A, E>(program: Effect.Effect<A, E, Cluster | InFlight>, session: ClusterSession, speed = 1): Promise<Result.Result<A, Failure>> => {
  const quiet = Effect.result(program).pipe(Effect.provide(session.layer), Effect.provideService(References.MinimumLogLevel, "None"))
  const runnable = watched(session, speed === 1 ? quiet : withFastClock(speed)(quiet))
  // An unreachable cluster is named: a pasted command may reach another server than the one meant.
  const named = (failure: Failure): Failure =>
    failure._tag === "Refused" && failure.error === "ErrUnreachable" && session.server !== undefined ? { ...failure, server: session.server } : failure
  try {
    const outcome = await Effect.runPromise(Effect.result(runnable))
    if (Result.isSuccess(outcome)) return Result.mapError(outcome.success, (e) => named(failureOfError(e)))
    return Result.fail(named(failureOfError(outcome.failure)))
  } catch (defect) {
    // A bug, not an expected error: say so, with what it was, so it can be reported.
    return Result.fail(failed([`internal error: ${defect instanceof Error ? (defect.stack ?? defect.message) : String(defect)}`]))
  }
}
