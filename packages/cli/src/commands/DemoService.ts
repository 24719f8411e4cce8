// `dispatch demo service`: the whole product path on one machine. The job service on in-memory PGlite
// dispatches to an embedded simulated cluster whose workloads report back; one job is submitted over
// HTTP like any Dioptra client would, followed queued -> started -> finished, and its logs and metrics
// are printed. With --exec the job's pod runs the bundled training script (examples/train.py, with Python 3; the
// Node stand-in without it) as a real process, which posts them with its report token: every step is real but
// the container runtime.
import { spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { Effect, Result } from "effect"
import { makeClient, runWithFetch, type DispatchClient } from "@dispatch/client"
import { SimCluster } from "@dispatch/sim/cluster"
import { hashToken, reportingWorkload, serve, type EntrypointInput, type QueueInput } from "@dispatch/server"
import { BundledExamples } from "../BundledExamples.ts"
import type { CliIo } from "../CliIo.ts"
import { endCommand } from "../CommandEnd.ts"
import { type Failure, failed, usage } from "../Failure.ts"
import { loadConfig, loadManifests, readDocument } from "../Inputs.ts"
import { Commands } from "../Commands.ts"
import { type ArgList, type CommandImpl, readValues } from "../FlagReader.ts"
import { seededSimulator } from "../SimSeed.ts"

/**
 * How long the demo waits for its job to end. The job runs two simulated seconds and the whole demo
 * takes about five on an idle machine; this bound is for a service that is stuck, not for a slow or
 * busy machine, which only makes the demo take longer.
 */
const FINISH_WITHIN_MS = 300_000

/** Runs one call of the typed client; a refusal becomes an error saying what the service answered. */
const calling =
  (client: DispatchClient) =>
  <A, E>(what: string, call: (client: DispatchClient) => Effect.Effect<A, E>): Promise<A> =>
    Effect.runPromise(call(client).pipe(Effect.mapError((error) => new Error(`${what}: ${JSON.stringify(error)}`))))

// An entrypoint with one swap, so the demo shows a choice being rendered away.
const taskGraph = {
  load: { load_dataset: { path: "$data_dir" } },
  train: { "?optimizer": { sgd: { train_sgd: { epochs: "$epochs" } }, adam: { train_adam: { epochs: "$epochs" } } }, dependencies: ["load"] }
}

/** How `demo service` runs its job's workload. */
interface DemoServiceArgs {
  /** The pod runs the bundled training script as a local process, which reports back itself. */
  readonly exec: boolean
}

/** The command the job's pod runs with --exec: the Python training script where `python3` runs, else the Node stand-in. */
export const execWorkload = (): { readonly command: ReadonlyArray<string>; readonly script: string } =>
  spawnSync("python3", ["--version"], { stdio: "ignore" }).status === 0
    ? { command: ["python3", BundledExamples.trainer], script: BundledExamples.trainer }
    : { command: [process.execPath, BundledExamples.workload], script: BundledExamples.workload }

const parseArgs = (list: ArgList) => {
  const options = readValues(Commands.demoService, list)
  return { exec: options.value("exec"), problems: options.problems }
}

const run = async (io: CliIo, args: DemoServiceArgs): Promise<Failure | undefined> => {
  const config = await loadConfig(io, BundledExamples.config)
  const rawConfig = await readDocument(io, BundledExamples.config)
  const manifests = await loadManifests(io, [BundledExamples.runtime])
  if (Result.isFailure(config)) return config.failure
  if (Result.isFailure(rawConfig)) return rawConfig.failure
  if (Result.isFailure(manifests)) return manifests.failure
  // Without exec a simulated workload posts for the pod; with it, the pod's process posts itself.
  const workload = args.exec ? undefined : reportingWorkload()
  const exec = args.exec ? execWorkload() : undefined
  const controllers = workload === undefined ? { workloads: { exec: true } } : { trainer: { runTimeMs: 2000, onRun: workload.onRun } }
  const seeded = seededSimulator({ controllers }, manifests.success, [config.success.namespace])
  if ("problems" in seeded) return usage(seeded.problems)
  const token = randomBytes(24).toString("base64url")
  const service = await serve({
    tokens: [{ name: "demo", group: "demo", access: "write", tokenHash: hashToken(token, randomBytes(16)) }],
    dispatch: { cluster: SimCluster(seeded.simulator, { callMs: 5000 }), pollMs: 100, syncMs: 250 }
  })
  if (Result.isFailure(service)) return failed([service.failure.message])
  const server = service.success
  try {
    const call = calling(await runWithFetch(makeClient({ baseUrl: server.url, token })))
    io.out(`dispatch demo service: the job service (Dioptra's job API) on in-memory PGlite at ${server.url}/api/v1,`)
    io.out(
      exec !== undefined
        ? `dispatching to an embedded simulated cluster whose pod runs ${exec.script} as a local process, which posts its logs and metrics back.`
        : "dispatching to an embedded simulated cluster whose workloads post their logs and metrics back."
    )
    io.out("")
    const runtime = config.success.runtimes[0]
    // The backend's config is the example file as read: the service checks it, as it would any client's.
    const backend = { config: rawConfig.success, runtime, image: "registry.example.com/ml/resnet:1.4.2" } as NonNullable<QueueInput["backend"]>
    const queue = (await call("queue", (c) => c.queues.create({ payload: { name: "gpu", description: "the example backend", backend } }))).id
    const entrypointInput: EntrypointInput = {
      name: "train",
      description: "trains a model",
      queues: [queue],
      parameters: [
        { name: "data_dir", type: "string" },
        { name: "epochs", type: "integer", defaultValue: "3" }
      ],
      artifactParameters: [],
      taskGraph,
      command: exec !== undefined ? [...exec.command] : ["python", "-m", "train"]
    }
    const entrypoint = (await call("entrypoint", (c) => c.entrypoints.create({ payload: entrypointInput }))).id
    const experiment = (await call("experiment", (c) => c.experiments.create({ payload: { name: "demo", entrypoints: [entrypoint] } }))).id
    io.out(`1. created  queue ${queue} (backend: ${config.success.mode} mode, namespace ${config.success.namespace}), entrypoint ${entrypoint} (swap ?optimizer), experiment ${experiment}`)
    const jobRequest = {
      entrypoint,
      queue,
      values: { data_dir: "/data/imagenet", epochs: "5" },
      swaps: [{ swapName: "optimizer", taskAlias: "adam" }],
      timeout: "1h",
      description: "demo run"
    }
    const job = (await call("job", (c) => c.jobs.create({ params: { id: experiment }, payload: jobRequest }))).id
    io.out(`2. submit   POST /experiments/${experiment}/jobs -> job ${job}`)
    let last = ""
    // Every status the job went through, from its history: a poll that comes late (a busy machine)
    // still shows each one, in order.
    let shown = 0
    const deadline = Date.now() + FINISH_WITHIN_MS
    for (;;) {
      const answer = await call("status", (c) => c.jobs.status({ params: { id: job } }))
      const status = answer.status
      const history = answer.history
      const trainJob = history.length > shown ? (await call("job", (c) => c.jobs.read({ params: { id: job } }))).dispatch.trainJob : undefined
      for (const entry of history.slice(shown)) {
        io.out(`3. status   ${entry.status}${trainJob === undefined || entry.status === "queued" ? "" : `  (TrainJob ${trainJob.namespace}/${trainJob.name})`}`)
      }
      shown = history.length
      last = status
      if (status === "finished" || status === "failed") break
      if (Date.now() > deadline) {
        return failed([`job ${job} did not finish within ${FINISH_WITHIN_MS / 1000} s of real time (last status ${status}): the service or its simulated cluster is stuck`])
      }
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    await workload?.settled()
    const logs = await call("logs", (c) => c.jobs.log({ params: { id: job }, query: {} }))
    const metrics = await call("metrics", (c) => c.jobs.metrics({ params: { id: job } }))
    io.out("4. logs")
    for (const record of logs.data) {
      io.out(`   ${record.severity.padEnd(7)} ${record.loggerName}: ${record.message}`)
    }
    io.out("5. metrics")
    for (const metric of metrics) {
      io.out(`   ${metric.name} = ${metric.value} (step ${metric.step})`)
    }
    return last === "finished" ? undefined : failed([`job ${job} ended ${last}`])
  } catch (error) {
    return failed([error instanceof Error ? error.message : String(error)])
  } finally {
    await server.close()
    // With exec, no workload process outlives the demo.
    await seeded.simulator.close()
  }
}

/** Runs `dispatch demo service`; resolves to the exit code. */
const runDemoService = async (list: ArgList, io: CliIo): Promise<number> => {
  const { exec, problems } = parseArgs(list)
  if (problems.length > 0) return endCommand(io, "demo service", "text", usage(problems))
  return endCommand(io, "demo service", "text", await run(io, { exec }))
}

/** `dispatch demo service` as the CLI runs it. */
export const demoServiceCommand: CommandImpl = { check: (list) => parseArgs(list).problems, run: runDemoService }
