// `dispatch probe`: the Factory's preflight probe, which proves the backend's gates (reach, write,
// launch) with a job that can never be scheduled and never stays; exits by the first gate not proven.
import { Result } from "effect"
import { gateRefusal, type ProbeReport, probe } from "@dispatch/effects"
import { type ClusterCommandSpec, clusterImpl, printResult } from "../ClusterCommand.ts"
import { noOptions, parseClusterCommand } from "../ClusterArgs.ts"
import { type Failure, failed, refused } from "../Failure.ts"
import { Commands } from "../Commands.ts"
import { runProgram } from "../RunProgram.ts"

const proof = (name: string, gate: ProbeReport["reach"]): ReadonlyArray<string> =>
  gate.proven ? [`${name.padEnd(6)} proven`] : [`${name.padEnd(6)} not proven`, ...gate.reasons.map((r) => `         - ${r}`)]

/** The plain lines of a probe report. */
export const probeLines = (report: ProbeReport): ReadonlyArray<string> => [
  `backend ${report.gate.state}${report.gate.state === "open" ? ": every gate proven" : `: ${report.gate.reason}`}`,
  ...proof("reach", report.reach).map((l) => `  ${l}`),
  ...proof("write", report.write).map((l) => `  ${l}`),
  ...proof("launch", report.launch).map((l) => `  ${l}`),
  report.leftovers.length === 0 ? "  the probe left nothing behind" : `  the probe could not remove: ${report.leftovers.join(", ")}`
]

/** The failure a probe report stands for: the first gate not proven, as Start's step 1 would refuse. */
export const probeFailure = (report: ProbeReport): Failure | undefined => {
  const leftovers = report.leftovers.length === 0 ? [] : [`the probe could not remove: ${report.leftovers.join(", ")}`]
  const refusal = gateRefusal(report.gate)
  if (refusal === undefined) return leftovers.length === 0 ? undefined : failed(leftovers)
  return refused(refusal.error, [refusal.reason, ...leftovers])
}

/** `dispatch probe`. */
export const probeCommand: ClusterCommandSpec<Record<never, never>> = {
  help: Commands.probe,
  writes: true,
  parse: (list) => parseClusterCommand(Commands.probe, list, noOptions),
  body: async ({ args, config, session, io }) => {
    const report = await runProgram(probe(config), session)
    if (Result.isFailure(report)) return report.failure
    printResult(io, args, report.success, probeLines(report.success))
    const failure = probeFailure(report.success)
    // With -o json the report already says which gate failed; stdout holds that one value.
    return failure?._tag === "Refused" ? { ...failure, reported: true } : failure
  }
}

/** `dispatch probe` as the CLI runs it. */
export const probeImpl = clusterImpl(probeCommand)
