// `dispatch sim serve`: a simulated cluster on 127.0.0.1 for kubectl and client-node, seeded with the
// runtimes given, until SIGINT or SIGTERM.
import { Result } from "effect"
import { Resources, kubeconfigFor, type SimServer, startSimServer, trainerPublicConfigMap } from "@dispatch/sim"
import { BundledExamples } from "../BundledExamples.ts"
import type { CliIo } from "../CliIo.ts"
import { endCommand } from "../CommandEnd.ts"
import { type Failure, failed, usage } from "../Failure.ts"
import { loadConfig, loadManifests } from "../Inputs.ts"
import { formatFault } from "../FaultSpec.ts"
import type { SeedObject } from "../RuntimeManifests.ts"
import { type KueueSetup, anonymousActsAs, controllersFor, defaultClusterQueue, readOnlyAuth, readOnlyToken, seededSimulator } from "../SimSeed.ts"
import { type SimServeArgs, parseSimServeArgs } from "../SimServeArgs.ts"
import { Commands } from "../Commands.ts"
import { usageLine } from "../Usage.ts"
import { serviceAccountTokens, serviceAccountUserName, withServiceAccountUsers } from "./SimServiceAccounts.ts"
import { type OutputFormat, printResult, takeOutput } from "../Output.ts"
import { type ArgList, type CommandImpl, problemsOf } from "../FlagReader.ts"

// The backend config `sim serve` serves: --config, or in kueue mode the bundled Kueue example. Its
// namespace is created, so that the probe and the first Start of that config find it; --mode kueue also
// serves its queue and admission check.
interface Served {
  readonly namespaces: ReadonlyArray<string>
  readonly kueue: KueueSetup | undefined
}

const servedOf = async (io: CliIo, args: SimServeArgs): Promise<Result.Result<Served, Failure>> => {
  const path = args.config ?? (args.mode === "kueue" ? BundledExamples.kueueConfig : undefined)
  if (path === undefined) return Result.succeed({ namespaces: [], kueue: undefined })
  const config = await loadConfig(io, path)
  if (Result.isFailure(config)) return Result.fail(config.failure)
  const namespaces = [config.success.namespace]
  if (args.mode !== "kueue") return Result.succeed({ namespaces, kueue: undefined })
  const kueue = config.success.kueue
  return kueue === undefined ? Result.fail(usage([`${path}: has no kueue section for --mode kueue`])) : Result.succeed({ namespaces, kueue })
}

// Trainer's manifests install its public version ConfigMap, which Kubeflow's SDK reads on every start;
// the cluster has it too, unless the manifests given bring their own.
const withTrainerPublic = (objects: ReadonlyArray<SeedObject>): ReadonlyArray<SeedObject> => {
  const object = trainerPublicConfigMap()
  const same = (seed: SeedObject) =>
    seed.resource.kind === "ConfigMap" && seed.object.metadata?.["name"] === object.metadata?.["name"] && seed.object.metadata?.["namespace"] === object.metadata?.["namespace"]
  const resource = Resources.find((r) => r.kind === "ConfigMap" && r.group === "")
  return objects.some(same) || resource === undefined ? objects : [...objects, { resource, object, source: "Trainer's public ConfigMap" }]
}

/** What `dispatch sim serve -o json|yaml` prints once it listens. */
export interface SimServeSummary {
  readonly url: string
  /** The kubeconfig written (--kubeconfig-out), if any. */
  readonly kubeconfig?: string
  readonly mode: SimServeArgs["mode"]
  readonly namespaces: ReadonlyArray<string>
  readonly readOnly: boolean
  readonly rbac: boolean
  /** The kubeconfig contexts of the ServiceAccounts served (--service-account). */
  readonly serviceAccounts: ReadonlyArray<string>
  readonly faults: ReadonlyArray<string>
}

const serve = async (io: CliIo, args: SimServeArgs, output: OutputFormat = "text"): Promise<Failure | undefined> => {
  const served = await servedOf(io, args)
  if (Result.isFailure(served)) return served.failure
  const kueue = served.success.kueue
  const manifests = await loadManifests(io, args.runtimes)
  if (Result.isFailure(manifests)) return manifests.failure
  const seeded = seededSimulator(
    {
      controllers: { ...controllersFor(args.mode, kueue, { exec: args.exec, ...(served.success.namespaces[0] === undefined ? {} : { namespace: served.success.namespaces[0] }), ...(args.queue === undefined ? {} : { queue: args.queue }) }), ...(args.runTimeSeconds === undefined ? {} : { trainer: { runTimeMs: args.runTimeSeconds * 1000 } }) },
      faults: args.faults,
      // The served clock follows real time from now, as a real cluster's does: its timestamps read right
      // against this machine's clock (kubectl's AGE, dispatch list's).
      startTime: Date.now(),
      ...(args.readOnly ? { auth: readOnlyAuth } : {}),
      ...(args.rbac ? { rbac: {} } : {})
    },
    withTrainerPublic(manifests.success),
    served.success.namespaces
  )
  if ("problems" in seeded) return usage(seeded.problems)
  const accounts = serviceAccountTokens(seeded.simulator, args.serviceAccounts)
  if (Result.isFailure(accounts)) {
    await seeded.simulator.close()
    return failed(accounts.failure)
  }

  let server: SimServer
  // The server's close ends its requests; the simulator's ends every container process (with --exec),
  // so none outlives the command.
  const closeAll = async () => {
    await server.close()
    await seeded.simulator.close()
  }
  try {
    const simulator = args.readOnly ? anonymousActsAs(seeded.simulator, readOnlyToken) : seeded.simulator
    server = await startSimServer({ simulator, port: args.port })
  } catch (error) {
    await seeded.simulator.close()
    return failed([error instanceof Error ? error.message : String(error)])
  }
  // A client given only the kubeconfig lands in the served namespace, as the config's jobs do.
  const servedNamespace = served.success.namespaces[0] ?? "default"
  if (args.kubeconfigOut !== undefined) {
    const kubeconfig = kubeconfigFor(server, { namespace: servedNamespace, ...(args.readOnly ? { token: readOnlyToken } : {}) })
    const written = await io.writeFile(args.kubeconfigOut, withServiceAccountUsers(kubeconfig, accounts.success))
    if (written.error !== undefined) {
      await closeAll()
      return failed([`cannot write ${args.kubeconfigOut}: ${written.error}`])
    }
  } else {
    io.err(`dispatch sim serve: no --kubeconfig-out; kubectl reaches it with --server ${server.url}`)
  }
  const summary: SimServeSummary = {
    url: server.url,
    ...(args.kubeconfigOut === undefined ? {} : { kubeconfig: args.kubeconfigOut }),
    mode: args.mode,
    namespaces: served.success.namespaces,
    readOnly: args.readOnly,
    rbac: args.rbac,
    serviceAccounts: accounts.success.map(({ account }) => serviceAccountUserName(account)),
    faults: args.faults.map(formatFault)
  }
  printResult(io, output, summary, [server.url])
  for (const fault of args.faults) io.err(`dispatch sim serve: fault ${formatFault(fault)}`)
  if (args.readOnly) io.err("dispatch sim serve: read-only: every request, with the kubeconfig's token or none (kubectl), may get, list and watch only")
  if (args.rbac) io.err("dispatch sim serve: rbac: every request is authorized with RBAC; a request without a token acts as a cluster admin")
  for (const { account } of accounts.success) io.err(`dispatch sim serve: ServiceAccount ${account.namespace}/${account.name}: kubeconfig context ${serviceAccountUserName(account)}`)
  if (kueue !== undefined) io.err(`dispatch sim serve: Kueue queue "${kueue.queue}" with admission check "${kueue.admissionCheck}"`)
  if (kueue !== undefined && args.queue !== undefined) io.err(`dispatch sim serve: ClusterQueue "${args.queue.clusterQueue ?? defaultClusterQueue}" with quota ${quotaText(args.queue)}`)
  if (args.exec) io.err("dispatch sim serve: exec: each pod's command runs here as a child process")
  await io.stopRequested
  await closeAll()
  return undefined
}

const quotaText = (queue: NonNullable<SimServeArgs["queue"]>): string => {
  const parts = [queue.cpu === undefined ? [] : [`cpu ${queue.cpu}`], queue.memory === undefined ? [] : [`memory ${queue.memory}`], queue.gpus === undefined ? [] : [`GPUs ${queue.gpus}`]].flat()
  return parts.length === 0 ? "unlimited" : parts.join(", ")
}

/** Runs `dispatch sim serve`; resolves to the exit code. */
const runSimServe = async (list: ArgList, io: CliIo): Promise<number> => {
  const { output, rest, problems } = takeOutput(Commands.simServe, list)
  const parsed = parseSimServeArgs(rest)
  const all = [...problems, ...problemsOf(parsed)]
  const failure = "problems" in parsed || all.length > 0 ? usage(all, usageLine(Commands.simServe)) : await serve(io, parsed.args, output)
  return endCommand(io, "sim serve", output, failure)
}

/** `dispatch sim serve` as the CLI runs it. */
export const simServeCommand: CommandImpl = {
  check: (list) => {
    const { rest, problems } = takeOutput(Commands.simServe, list)
    return [...problems, ...problemsOf(parseSimServeArgs(rest))]
  },
  run: runSimServe
}
