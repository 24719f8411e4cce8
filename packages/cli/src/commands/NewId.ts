// `dispatch new-id`: a fresh JobID (a ULID) for a request's `job`, from Effect's Clock and the system's
// secure randomness.
import { randomBytes } from "node:crypto"
import { Clock, Effect, Result } from "effect"
import { ulid, ulidEntropyBytes } from "@dispatch/jobs"
import { CommandSpecs, usageLine } from "../CommandSpec.ts"
import { endCommand } from "../CommandEnd.ts"
import { usage } from "../Failure.ts"
import { type CommandImpl, type OptionReader, finish, readOptions } from "../OptionReader.ts"
import { OutputFormats, printResult } from "../Output.ts"
import type { ArgList } from "../OptionReader.ts"

/** A fresh JobID, its time from the Clock. */
export const newJobId: Effect.Effect<string> = Effect.map(Clock.currentTimeMillis, (time) =>
  // The Clock's time is a whole millisecond of this era and the entropy has its size: ulid cannot refuse them.
  Result.getOrThrow(ulid({ time, entropy: [...randomBytes(ulidEntropyBytes)] }))
)

const parse = (list: ArgList) => {
  const options: OptionReader = readOptions(list, { values: ["output"] })
  const output = options.choice("output", OutputFormats, "text")
  return finish(options, () => ({ output: output ?? "text" }))
}

/** `dispatch new-id` as the CLI runs it. */
export const newIdCommand: CommandImpl = {
  check: (list) => {
    const parsed = parse(list)
    return "problems" in parsed ? parsed.problems : []
  },
  run: async (list, io) => {
    const parsed = parse(list)
    if ("problems" in parsed) return endCommand(io, "new-id", "text", usage(parsed.problems, usageLine(CommandSpecs.newId)))
    const id = await Effect.runPromise(newJobId)
    printResult(io, parsed.args.output, { job: id }, [id])
    return endCommand(io, "new-id", "text", undefined)
  }
}
