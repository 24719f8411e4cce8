import { Result, Schema } from "effect"
import { allowedChanges, InvalidTransition, type JobStatus } from "./JobStatus.ts"

/** What dispatch's Find reports about a started job. */
export const FindState = Schema.Literals(["Held", "Queued", "InFlight", "Running", "Succeeded", "Failed"])
/** What dispatch's Find reports about a started job. */
export type FindState = typeof FindState.Type

const statusByFindState: Readonly<Record<FindState, JobStatus>> = {
  Held: "deferred",
  Queued: "queued",
  InFlight: "queued",
  Running: "started",
  Succeeded: "finished",
  Failed: "failed"
}

/** The job status that a Find report means. */
export const statusForFind = (state: FindState): JobStatus => statusByFindState[state]

const forwardSteps = (from: JobStatus): ReadonlyArray<JobStatus> =>
  allowedChanges[from].filter((change): change is JobStatus => change !== "reset")

// Polling can miss states (a short job goes from queued to finished between two Finds), so the service needs
// the legal path, not just the end state. Breadth-first over at most five states; reset is never implied.
/** The status changes, in order, that take a job from its status to what Find reports; empty when already there. */
export const stepsToward = (from: JobStatus, state: FindState): Result.Result<ReadonlyArray<JobStatus>, InvalidTransition> => {
  const target = statusForFind(state)
  const paths = new Map<JobStatus, ReadonlyArray<JobStatus>>([[from, []]])
  const frontier: Array<JobStatus> = [from]
  for (let next = frontier.shift(); next !== undefined; next = frontier.shift()) {
    const path = paths.get(next) ?? []
    for (const step of forwardSteps(next)) {
      if (paths.has(step)) continue
      paths.set(step, [...path, step])
      frontier.push(step)
    }
  }
  const path = paths.get(target)
  return path === undefined ? Result.fail(new InvalidTransition({ from, to: target })) : Result.succeed(path)
}
