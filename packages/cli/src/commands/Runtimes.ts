// `dispatch runtimes`: each runtime the config lists, each TrainingRuntime of the namespace and each
// ClusterTrainingRuntime of the cluster: whether it is on the cluster, and whether Start would use it
// (the runtime rules), with every reason if not.
import { Effect, Result } from "effect"
import { type BackendConfig, type JobSpec, type RuntimeRef, checkRuntime, checkRuntimeListed, labelKeys, probeRequest, runtimeLabel, sameRuntime } from "@dispatch/render"
import { Cluster, ClusterTrainingRuntimes, TrainingRuntimes, getIfExists, openBackend, readFailure, requireAccess } from "@dispatch/effects"
import { type ClusterCommandSpec, clusterImpl, printResult } from "../ClusterCommand.ts"
import { parseClusterCommand } from "../ClusterArgs.ts"
import { Commands } from "../Commands.ts"
import { loadRequest } from "../Inputs.ts"
import { runProgram } from "../RunProgram.ts"
import { table } from "./List.ts"

/** One runtime as `dispatch runtimes` reports it. */
export interface RuntimeReport {
  readonly kind: RuntimeRef["kind"]
  readonly name: string
  readonly configured: boolean
  readonly onCluster: boolean
  readonly usable: boolean
  readonly reasons: ReadonlyArray<string>
}

/** Every runtime of the config, of its namespace and of the cluster, checked against the runtime rules for `spec`. */
export const runtimeReports = (config: BackendConfig, spec: JobSpec) =>
  Effect.gen(function* () {
    yield* requireAccess(openBackend(config), "read")
    const cluster = yield* Cluster
    // dispatch's own copies are TrainingRuntimes too; they carry the job label and are not offered.
    const listed = (yield* Effect.mapError(cluster.list(TrainingRuntimes, config.namespace, ""), readFailure)).filter(
      (o) => o.metadata.labels?.[labelKeys(config).jobId] === undefined
    )
    // ClusterTrainingRuntimes are cluster-scoped: all of them are listed. A user whose RBAC allows no
    // cluster-wide list still sees those the config names, read one by one.
    const clusterWide = yield* Effect.result(cluster.list(ClusterTrainingRuntimes, config.namespace, ""))
    const clusterListed = Result.isSuccess(clusterWide)
      ? clusterWide.success
      : yield* Effect.forEach(config.runtimes.filter((r) => r.kind === "ClusterTrainingRuntime"), (ref) => getIfExists(ClusterTrainingRuntimes, { name: ref.name })).pipe(
          Effect.map((objects) => objects.filter((o): o is NonNullable<typeof o> => o !== undefined))
        )
    const onCluster: ReadonlyArray<RuntimeRef> = [
      ...listed.map((o): RuntimeRef => ({ kind: "TrainingRuntime", name: o.metadata.name ?? "" })),
      ...clusterListed.map((o): RuntimeRef => ({ kind: "ClusterTrainingRuntime", name: o.metadata.name ?? "" }))
    ]
    const found = new Map<string, unknown>([...listed, ...clusterListed].map((o, i) => [runtimeLabel(onCluster[i] ?? { kind: "TrainingRuntime", name: "" }), o]))
    const refs: Array<RuntimeRef> = [...config.runtimes]
    for (const ref of onCluster) if (!refs.some((r) => sameRuntime(r, ref))) refs.push(ref)
    return refs.map((ref): RuntimeReport => {
      const object = found.get(runtimeLabel(ref))
      // Every reason: not configured, and (as if it were) missing or breaking the rules.
      const unlisted = checkRuntimeListed(config, ref)?.reasons ?? []
      const rules = checkRuntime({ ...config, runtimes: [...config.runtimes, ref] }, ref, object, spec)?.reasons ?? []
      const reasons = [...unlisted, ...rules]
      return {
        kind: ref.kind,
        name: ref.name,
        configured: config.runtimes.some((r) => sameRuntime(r, ref)),
        onCluster: object !== undefined,
        usable: reasons.length === 0,
        reasons
      }
    })
  })

const yesNo = (value: boolean): string => (value ? "yes" : "no")

/** The table of runtime reports, each reason on a line of its own under its runtime. */
export const runtimeLines = (reports: ReadonlyArray<RuntimeReport>): ReadonlyArray<string> => {
  const rows = table([["KIND", "NAME", "CONFIGURED", "ON CLUSTER", "USABLE"], ...reports.map((r) => [r.kind, r.name, yesNo(r.configured), yesNo(r.onCluster), yesNo(r.usable)])])
  return [rows[0] ?? "", ...reports.flatMap((r, i) => [rows[i + 1] ?? "", ...r.reasons.map((reason) => `  - ${reason}`)])]
}

/** `dispatch runtimes`. */
export const runtimesCommand: ClusterCommandSpec<{ readonly request?: string }> = {
  help: Commands.runtimes,
  writes: false,
  parse: (list) =>
    parseClusterCommand(Commands.runtimes, list, (options) => {
      const request = options.value("request")
      return () => (request === undefined ? {} : { request })
    }),
  body: async ({ args, config, session, io }) => {
    let spec: JobSpec = probeRequest(config).spec
    if (args.request !== undefined) {
      const request = await loadRequest(io, args.request)
      if (Result.isFailure(request)) return request.failure
      spec = request.success.spec
    }
    const reports = await runProgram(runtimeReports(config, spec), session)
    if (Result.isFailure(reports)) return reports.failure
    printResult(io, args, reports.success, runtimeLines(reports.success))
    return undefined
  }
}

/** `dispatch runtimes` as the CLI runs it. */
export const runtimesImpl = clusterImpl(runtimesCommand)
