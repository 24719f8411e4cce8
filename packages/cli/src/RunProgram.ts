// Runs an Effect program of the effects package and turns its outcome into a command's result: the
// six error kinds keep their kind, reasons and reference; a cluster that cannot even be set up
// (kubeconfig unreadable) is ErrUnreachable; anything else is a failure with its message.
import { Effect, References, Result } from "effect"
import { ErrorKinds, type ErrorKind } from "@dispatch/render"
import type { Cluster, InFlight } from "@dispatch/effects"
import type { ClusterSession } from "./ClusterSession.ts"
import { withFastClock } from "./FastClock.ts"
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

/**
 * Runs `program` in `session`, quietly (the effects' own log lines are for services, not terminals),
 * with the Clock `speed` times faster than real time (an embedded simulator follows it).
 */
export const runProgram = async <A, E>(program: Effect.Effect<A, E, Cluster | InFlight>, session: ClusterSession, speed = 1): Promise<Result.Result<A, Failure>> => {
  const quiet = Effect.result(program).pipe(Effect.provide(session.layer), Effect.provideService(References.MinimumLogLevel, "None"))
  const runnable = speed === 1 ? quiet : withFastClock(speed)(quiet)
  try {
    const outcome = await Effect.runPromise(Effect.result(runnable))
    if (Result.isSuccess(outcome)) return Result.mapError(outcome.success, failureOfError)
    return Result.fail(failureOfError(outcome.failure))
  } catch (defect) {
    // A bug, not an expected error: say so, with what it was, so it can be reported.
    return Result.fail(failed([`internal error: ${defect instanceof Error ? (defect.stack ?? defect.message) : String(defect)}`]))
  }
}
