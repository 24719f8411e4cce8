// `dispatch sim serve`: a simulated cluster on 127.0.0.1 for kubectl and client-node, seeded with the
// runtimes given, until SIGINT or SIGTERM.
import { Result } from "effect"
import { kubeconfigFor, type SimServer, startSimServer } from "@dispatch/sim"
import { BundledExamples } from "../BundledExamples.ts"
import type { CliIo } from "../CliIo.ts"
import { endCommand } from "../CommandEnd.ts"
import { type Failure, failed, usage } from "../Failure.ts"
import { loadConfig, loadManifests } from "../Inputs.ts"
import { formatFault } from "../FaultSpec.ts"
import { type KueueSetup, anonymousActsAs, controllersFor, readOnlyAuth, readOnlyToken, seededSimulator } from "../SimSeed.ts"
import { type SimServeArgs, parseSimServeArgs, simServeUsage } from "../SimServeArgs.ts"

// --mode kueue serves the queue and admission check of a backend config, the bundled Kueue example's
// unless --config names another, so that `dispatch start` with that config finds them.
const kueueOf = async (io: CliIo, args: SimServeArgs): Promise<Result.Result<KueueSetup | undefined, Failure>> => {
  if (args.mode !== "kueue") return Result.succeed(undefined)
  const config = await loadConfig(io, args.config ?? BundledExamples.kueueConfig)
  if (Result.isFailure(config)) return Result.fail(config.failure)
  const kueue = config.success.kueue
  return kueue === undefined ? Result.fail(usage([`${args.config ?? BundledExamples.kueueConfig}: has no kueue section for --mode kueue`])) : Result.succeed(kueue)
}

const serve = async (io: CliIo, args: SimServeArgs): Promise<Failure | undefined> => {
  const kueue = await kueueOf(io, args)
  if (Result.isFailure(kueue)) return kueue.failure
  const manifests = await loadManifests(io, args.runtimes)
  if (Result.isFailure(manifests)) return manifests.failure
  const seeded = seededSimulator(
    {
      controllers: { ...controllersFor(args.mode, kueue.success), ...(args.runTimeSeconds === undefined ? {} : { trainer: { runTimeMs: args.runTimeSeconds * 1000 } }) },
      faults: args.faults,
      ...(args.readOnly ? { auth: readOnlyAuth } : {})
    },
    manifests.success
  )
  if ("problems" in seeded) return usage(seeded.problems)

  let server: SimServer
  try {
    const simulator = args.readOnly ? anonymousActsAs(seeded.simulator, readOnlyToken) : seeded.simulator
    server = await startSimServer({ simulator, port: args.port })
  } catch (error) {
    return failed([error instanceof Error ? error.message : String(error)])
  }
  if (args.kubeconfigOut !== undefined) {
    const written = await io.writeFile(args.kubeconfigOut, kubeconfigFor(server, args.readOnly ? { token: readOnlyToken } : {}))
    if (written.error !== undefined) {
      await server.close()
      return failed([`cannot write ${args.kubeconfigOut}: ${written.error}`])
    }
  } else {
    io.err(`dispatch sim serve: no --kubeconfig-out; kubectl reaches it with --server ${server.url}`)
  }
  io.out(server.url)
  for (const fault of args.faults) io.err(`dispatch sim serve: fault ${formatFault(fault)}`)
  if (args.readOnly) io.err("dispatch sim serve: read-only: every request, with the kubeconfig's token or none (kubectl), may get, list and watch only")
  if (kueue.success !== undefined) io.err(`dispatch sim serve: Kueue queue "${kueue.success.queue}" with admission check "${kueue.success.admissionCheck}"`)
  await io.stopRequested
  await server.close()
  return undefined
}

/** Runs `dispatch sim serve` with the arguments after `sim serve`; resolves to the exit code. */
export const runSimServe = async (argv: ReadonlyArray<string>, io: CliIo): Promise<number> => {
  const parsed = parseSimServeArgs(argv)
  const failure = "problems" in parsed ? usage(parsed.problems, simServeUsage) : await serve(io, parsed.args)
  return endCommand(io, "sim serve", false, failure)
}
