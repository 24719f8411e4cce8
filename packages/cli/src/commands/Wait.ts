// `dispatch wait`: waits until a job reaches one of the states named, reading it once a second (Effect's
// Clock); 0 when it does, 1 when --timeout passes first, the error's own code on a typed error.
import { Clock, Effect, Result } from "effect"
import { type FoundJob, JobStateNames, find, openBackend } from "@dispatch/effects"
import { type ClusterCommandSpec, clusterImpl, printResult } from "../ClusterCommand.ts"
import { type JobSubmission, jobOptions, parseClusterCommand } from "../ClusterArgs.ts"
import type { CliIo } from "../CliIo.ts"
import { Commands } from "../Commands.ts"
import { failed } from "../Failure.ts"
import { runProgram } from "../RunProgram.ts"
import { statusLine } from "./Find.ts"

type StateName = (typeof JobStateNames)[number]

/** kubectl wait's default bound. */
export const DEFAULT_WAIT_MS = 30_000

/** Finds the job each second until its state is one of `states` (the status) or `timeoutMs` passes (undefined). */
export const waitFor = (io: CliIo, key: JobSubmission, states: ReadonlySet<string>, timeoutMs: number, config: Parameters<typeof openBackend>[0]) =>
  Effect.gen(function* () {
    const backend = openBackend(config)
    const began = yield* Clock.currentTimeMillis
    for (;;) {
      const status: FoundJob = yield* find(backend, key)
      if (states.has(status.state)) return { status, reached: true }
      const waited = (yield* Clock.currentTimeMillis) - began
      if (waited >= timeoutMs) return { status, reached: false }
      if (waited >= 1000) {
        const line = `dispatch wait: ${status.ref.name} is ${status.state}, waiting for ${[...states].join(" or ")} (${Math.floor(waited / 1000)} s)`
        if (io.errTerminal) io.status(line)
        else if (Math.floor(waited / 1000) % 10 === 1) io.err(line)
      }
      yield* Effect.sleep(Math.min(1000, timeoutMs - waited))
    }
  }).pipe(Effect.ensuring(Effect.sync(() => io.status(undefined))))

/** `dispatch wait`. */
export const waitCommand: ClusterCommandSpec<JobSubmission & { readonly states: ReadonlyArray<StateName> }> = {
  help: Commands.wait,
  writes: false,
  ownsWaits: true,
  parse: (list) =>
    parseClusterCommand(Commands.wait, list, (options) => {
      const job = jobOptions(options)
      const text = options.value("for") ?? ""
      const states = text.split(",").filter((s) => s !== "")
      for (const s of states) if (!(JobStateNames as ReadonlyArray<string>).includes(s)) options.problem(`--for "${s}" is not a state: ${JobStateNames.join(", ")}`)
      return () => ({ ...job(), states: states as ReadonlyArray<StateName> })
    }),
  body: async ({ args, config, session, io }) => {
    const timeoutMs = args.timeoutMs ?? DEFAULT_WAIT_MS
    const waited = await runProgram(waitFor(io, { job: args.job, submission: args.submission }, new Set(args.states), timeoutMs, config), session)
    if (Result.isFailure(waited)) return waited.failure
    const { status, reached } = waited.success
    if (!reached) return failed([`${status.ref.name} did not reach ${args.states.join(" or ")} within ${timeoutMs / 1000} s: it is ${status.state}`])
    printResult(io, args, status, [statusLine(status)])
    return undefined
  }
}

/** `dispatch wait` as the CLI runs it. */
export const waitImpl = clusterImpl(waitCommand)
