// The options of `dispatch demo`: every one has a default, so `dispatch demo` alone runs the bundled
// example on an embedded simulator.
import { type ArgList, type UsageError, finish, readOptions } from "./OptionReader.ts"

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

/** The speed the demo runs at unless told otherwise: a 5 s simulated run takes a quarter of a second. */
export const DEFAULT_SPEED = 20

/** The fastest speed accepted: beyond it the simulator's controllers would step more than the terminal can show. */
export const MAX_SPEED = 1000

/** Reads the arguments that follow `demo`. */
export const parseDemoArgs = (list: ArgList): { readonly args: DemoArgs } | UsageError => {
  const options = readOptions(list, { values: ["request", "config", "speed"], multi: ["runtime"], switches: ["exec"] })
  const request = options.single("request")
  const runtimes = options.list("runtime")
  const config = options.single("config")
  const exec = options.switch("exec")
  const speedText = options.single("speed")
  const speed = speedText === undefined ? DEFAULT_SPEED : Number(speedText)
  if (speedText !== undefined && (!/^\d+$/.test(speedText) || speed < 1 || speed > MAX_SPEED)) {
    options.problem(`--speed "${speedText}" is not a whole number from 1 to ${MAX_SPEED}`)
  }
  return finish(options, () => ({
    ...(request === undefined ? {} : { request }),
    runtimes,
    ...(config === undefined ? {} : { config }),
    speed,
    exec
  }))
}
