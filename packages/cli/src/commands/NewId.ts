// `dispatch new-id`: a fresh JobID (a ULID) for a request's `job`, from Effect's Clock and the system's
// secure randomness.
import { randomBytes } from "node:crypto"
import { Clock, Effect, Result } from "effect"
import { ulid, ulidEntropyBytes } from "@dispatch/jobs"
import { Commands } from "../Commands.ts"
import { endCommand } from "../CommandEnd.ts"
import { usage } from "../Failure.ts"
import { type ArgList, type CommandImpl, finish, readValues } from "../FlagReader.ts"
import { printResult } from "../Output.ts"
import { usageLine } from "../Usage.ts"

/** A fresh JobID, its time from the Clock. */
export const newJobId: Effect.Effect<string> = Effect.map(Clock.currentTimeMillis, (time) =>
  // The Clock's time is a whole millisecond of this era and the entropy has its size: ulid cannot refuse them.
  Result.getOrThrow(ulid({ time, entropy: [...randomBytes(ulidEntropyBytes)] }))
)

const parse = (list: ArgList) => {
  const options = readValues(Commands.newId, list)
  const output = options.value("output")
  return finish(options, () => ({ output }))
}

/** `dispatch new-id` as the CLI runs it. */
export const newIdCommand: CommandImpl = {
  check: (list) => {
    const parsed = parse(list)
    return "problems" in parsed ? parsed.problems : []
  },
  run: async (list, io) => {
    const parsed = parse(list)
    if ("problems" in parsed) return endCommand(io, "new-id", "text", usage(parsed.problems, usageLine(Commands.newId)))
    const id = await Effect.runPromise(newJobId)
    printResult(io, parsed.args.output, { job: id }, [id])
    return endCommand(io, "new-id", "text", undefined)
  }
}
