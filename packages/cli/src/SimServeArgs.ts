// The options of `dispatch sim serve`, read from its command line with every problem named.
import type { FaultRule } from "@dispatch/sim"
import { parseFault } from "./FaultSpec.ts"
import { type ArgList, type UsageError, finish, readOptions } from "./OptionReader.ts"

/** Which controllers the served simulator runs. */
export type SimMode = "plain" | "kueue"

/** The options of `dispatch sim serve`. */
export interface SimServeArgs {
  readonly port: number
  /** Where to write a kubeconfig for the server; absent, none is written. */
  readonly kubeconfigOut?: string
  readonly runtimes: ReadonlyArray<string>
  readonly mode: SimMode
  /** The backend config whose Kueue queue and admission check `--mode kueue` serves. */
  readonly config?: string
  /** Calls the server answers with a fault instead (see FaultSpec.ts). */
  readonly faults: ReadonlyArray<FaultRule>
  /** The kubeconfig's identity may only get, list and watch: every write is 403 Forbidden. */
  readonly readOnly: boolean
  /** How long each training run takes, in seconds of real time, before it completes; absent, the simulator's default (5 s). */
  readonly runTimeSeconds?: number
}

/** Reads the arguments that follow `sim serve`. */
export const parseSimServeArgs = (list: ArgList): { readonly args: SimServeArgs } | UsageError => {
  const options = readOptions(list, { values: ["port", "kubeconfig-out", "mode", "config", "run-time"], multi: ["runtime", "fault"], switches: ["read-only"] })
  // No --port: any free port; the kubeconfig written says which.
  const portText = options.single("port")
  const port = portText === undefined ? 0 : Number(portText)
  if (portText !== undefined && (!/^\d+$/.test(portText) || port > 65535)) options.problem(`--port "${portText}" is not a port number (0-65535)`)
  const kubeconfigOut = options.single("kubeconfig-out")
  const mode = options.choice("mode", ["plain", "kueue"] as const, "plain")
  const runtimes = options.list("runtime")
  const config = options.single("config")
  const faults = options.list("fault").flatMap((text) => {
    const parsed = parseFault(text)
    if ("problem" in parsed) options.problem(parsed.problem)
    return "rule" in parsed ? [parsed.rule] : []
  })
  const readOnly = options.switch("read-only")
  const runTimeText = options.single("run-time")
  if (runTimeText !== undefined && !/^[1-9]\d{0,5}$/.test(runTimeText)) options.problem(`--run-time "${runTimeText}" is not a whole number of seconds from 1 to 999999`)
  return finish(options, () => ({ port, ...(kubeconfigOut === undefined ? {} : { kubeconfigOut }), runtimes, mode: mode ?? "plain", ...(config === undefined ? {} : { config }), faults, readOnly, ...(runTimeText === undefined ? {} : { runTimeSeconds: Number(runTimeText) }) }))
}
