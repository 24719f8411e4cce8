// The options of `dispatch demo`: every one has a default, so `dispatch demo` alone runs the bundled
// example on an embedded simulator.
import { Commands } from "./Commands.ts"
import { type ArgList, type UsageError, finish, readValues } from "./FlagReader.ts"

/** The options of `dispatch demo`; absent files mean the bundled examples. */
export interface DemoArgs {
  readonly request?: string
  readonly runtimes: ReadonlyArray<string>
  readonly config?: string
  /** How many times faster than real time the embedded simulator's clock runs. */
  readonly speed: number
  /** Each pod's command runs as a local child process instead of by the clock. */
  readonly exec: boolean
}

/** Reads the arguments that follow `demo`. */
export const parseDemoArgs = (list: ArgList): { readonly args: DemoArgs } | UsageError => {
  const options = readValues(Commands.demo, list)
  const request = options.value("request")
  const runtimes = options.value("runtime")
  const config = options.value("config")
  const exec = options.value("exec")
  const speed = options.value("speed")
  return finish(options, () => ({
    ...(request === undefined ? {} : { request }),
    runtimes,
    ...(config === undefined ? {} : { config }),
    speed,
    exec
  }))
}
