// The options of `dispatch sim serve`, read from its command line with every problem named.
import { dns1123LabelProblems, dns1123SubdomainProblems, isDns1123Subdomain } from "@dispatch/kube"
import type { FaultRule } from "@dispatch/sim"
import { parseFault } from "./FaultSpec.ts"
import { Commands } from "./Commands.ts"
import { type ArgList, type UsageError, type ValueReader, finish, readValues } from "./FlagReader.ts"

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
  /** Every request is authorized with RBAC; the kubeconfig's own user (no token) is a cluster admin. */
  readonly rbac: boolean
  /** With --rbac: the ServiceAccounts created, each with a kubeconfig user and context carrying its token. */
  readonly serviceAccounts: ReadonlyArray<ServiceAccountRef>
  /** How long each training run takes, in seconds of real time, before it completes; absent, the simulator's default (5 s). */
  readonly runTimeSeconds?: number
  /** Each pod's container runs its command as a local child process (the simulator's exec runtime). */
  readonly exec: boolean
  /** With --mode kueue: the ClusterQueue behind the config's LocalQueue and its nominal quota. */
  readonly queue?: QueueQuota
}

/** A ServiceAccount named as `NAMESPACE/NAME`. */
export interface ServiceAccountRef {
  readonly namespace: string
  readonly name: string
}

/** The `NAMESPACE/NAME` of `--service-account`, or every problem with it (each part as the API server checks it). */
export const parseServiceAccountRef = (text: string): ServiceAccountRef | { readonly problems: ReadonlyArray<string> } => {
  const parts = text.split("/")
  const [namespace = "", name = ""] = parts
  if (parts.length !== 2) return { problems: [`--service-account ${JSON.stringify(text)}: must be NAMESPACE/NAME`] }
  const problems = [...dns1123LabelProblems(namespace).map((p) => `--service-account ${JSON.stringify(text)}: namespace: ${p}`), ...dns1123SubdomainProblems(name).map((p) => `--service-account ${JSON.stringify(text)}: name: ${p}`)]
  return problems.length > 0 ? { problems } : { namespace, name }
}

/** The ClusterQueue `--mode kueue` seeds: its name and nominal quota (absent = not counted). */
export interface QueueQuota {
  readonly clusterQueue?: string
  readonly cpu?: string
  readonly memory?: string
  readonly gpus?: number
}

/** Reads the arguments that follow `sim serve`. */
export const parseSimServeArgs = (list: ArgList): { readonly args: SimServeArgs } | UsageError => {
  const options = readValues(Commands.simServe, list)
  // No --port: any free port; the kubeconfig written says which.
  const port = options.value("port")
  const kubeconfigOut = options.value("kubeconfig-out")
  const mode = options.value("mode")
  const runtimes = options.value("runtime")
  const config = options.value("config")
  const faults = options.value("fault").flatMap((text) => {
    const parsed = parseFault(text)
    if ("problem" in parsed) options.problem(parsed.problem)
    return "rule" in parsed ? [parsed.rule] : []
  })
  const readOnly = options.value("read-only")
  const rbac = options.value("rbac")
  if (rbac && readOnly) options.problem("--rbac and --read-only: give one (with --rbac, a read-only user is a ServiceAccount bound to a reading Role)")
  const serviceAccounts = options.value("service-account").flatMap((text) => {
    const parsed = parseServiceAccountRef(text)
    if ("problems" in parsed) for (const p of parsed.problems) options.problem(p)
    return "problems" in parsed ? [] : [parsed]
  })
  if (options.given("service-account") && kubeconfigOut === undefined) options.problem("--service-account needs --kubeconfig-out: its user and context are written there")
  if (options.given("service-account") && !rbac) options.problem("--service-account needs --rbac: without it every request acts as a cluster admin")
  const runTimeSeconds = options.value("run-time")
  const exec = options.value("exec")
  const queue = readQueueQuota(options, mode)
  return finish(options, () => ({ port, ...(kubeconfigOut === undefined ? {} : { kubeconfigOut }), runtimes, mode, ...(config === undefined ? {} : { config }), faults, readOnly, rbac, serviceAccounts, ...(runTimeSeconds === undefined ? {} : { runTimeSeconds }), exec, ...(queue === undefined ? {} : { queue }) }))
}

/** Reads the Kueue quota flags; each needs --mode kueue. */
const readQueueQuota = (options: ValueReader<(typeof Commands.simServe)["flags"]>, mode: SimMode): QueueQuota | undefined => {
  const names = ["queue-cpu", "queue-memory", "queue-gpus", "cluster-queue"] as const
  for (const name of names) if (options.given(name) && mode !== "kueue") options.problem(`--${name} sets the Kueue queue: it needs --mode kueue`)
  const cpu = options.value("queue-cpu")
  const memory = options.value("queue-memory")
  const gpus = options.value("queue-gpus")
  const clusterQueue = options.value("cluster-queue")
  if (clusterQueue !== undefined && !isDns1123Subdomain(clusterQueue)) options.problem(`--cluster-queue "${clusterQueue}" is not a valid object name (lower case letters, digits, '-' and '.')`)
  if (names.every((name) => !options.given(name))) return undefined
  return {
    ...(clusterQueue === undefined ? {} : { clusterQueue }),
    ...(cpu === undefined ? {} : { cpu }),
    ...(memory === undefined ? {} : { memory }),
    ...(gpus === undefined ? {} : { gpus })
  }
}
