import { Result, Schema } from "effect"

/** The states of a job. */
export const JobStatus = Schema.Literals(["queued", "started", "deferred", "finished", "failed"])
/** The state of a job. */
export type JobStatus = typeof JobStatus.Type

/** A requested status change: a new state, or `reset`, which puts the job back to queued. */
export const StatusChange = Schema.Literals(["queued", "started", "deferred", "finished", "failed", "reset"])
/** A requested status change. */
export type StatusChange = typeof StatusChange.Type

/** Each state's allowed changes, exactly as upstream Dioptra allows them. */
export const allowedChanges: Readonly<Record<JobStatus, ReadonlyArray<StatusChange>>> = {
  queued: ["started", "deferred", "reset"],
  started: ["finished", "failed", "reset"],
  deferred: ["started", "reset"],
  finished: ["reset"],
  failed: ["reset"]
}

/** A status change the state machine does not allow from the job's current state. */
export class InvalidTransition extends Schema.TaggedError<InvalidTransition>()("InvalidTransition", {
  from: Schema.String,
  to: Schema.String
}) {
  override get message() {
    const allowed = allowedChanges[this.from as JobStatus] ?? []
    return `a ${this.from} job cannot become ${this.to}; allowed: ${allowed.join(", ")}`
  }
  get status() {
    return 400 as const
  }
}

/** Applies a status change, or refuses it when the current state does not allow it. */
export const transition = (from: JobStatus, change: StatusChange): Result.Result<JobStatus, InvalidTransition> =>
  allowedChanges[from].includes(change)
    ? Result.succeed(change === "reset" ? "queued" : change)
    : Result.fail(new InvalidTransition({ from, to: change }))
