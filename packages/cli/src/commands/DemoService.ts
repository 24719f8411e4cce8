// `dispatch demo service`: the whole product path on one machine. The job service on in-memory PGlite
// dispatches to an embedded simulated cluster whose workloads report back; one job is submitted over
// HTTP like any Dioptra client would, followed queued -> started -> finished, and its logs and metrics
// are printed.
import { randomBytes } from "node:crypto"
import { Result } from "effect"
import { SimCluster } from "@dispatch/effects"
import { hashToken, reportingWorkload, serve } from "@dispatch/server"
import { BundledExamples } from "../BundledExamples.ts"
import type { CliIo } from "../CliIo.ts"
import { endCommand } from "../CommandEnd.ts"
import { type Failure, failed, usage } from "../Failure.ts"
import { loadConfig, loadManifests, readDocument } from "../Inputs.ts"
import { type ArgList, type CommandImpl, readOptions } from "../OptionReader.ts"
import { seededSimulator } from "../SimSeed.ts"

/**
 * How long the demo waits for its job to end. The job runs two simulated seconds and the whole demo
 * takes about five on an idle machine; this bound is for a service that is stuck, not for a slow or
 * busy machine, which only makes the demo take longer.
 */
const FINISH_WITHIN_MS = 300_000

type Call = (method: string, path: string, body?: unknown) => Promise<{ readonly status: number; readonly body: any }>

const clientOf = (base: string, token: string): Call => async (method, path, body) => {
  const response = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
}

/** Creates through the API, or says what the service answered. */
const created = async (call: Call, what: string, path: string, body: unknown): Promise<number> => {
  const answer = await call("POST", path, body)
  if (answer.status !== 200) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.body)}`)
  return answer.body.id as number
}

// An entrypoint with one swap, so the demo shows a choice being rendered away.
const taskGraph = {
  load: { load_dataset: { path: "$data_dir" } },
  train: { "?optimizer": { sgd: { train_sgd: { epochs: "$epochs" } }, adam: { train_adam: { epochs: "$epochs" } } }, dependencies: ["load"] }
}

const run = async (io: CliIo): Promise<Failure | undefined> => {
  const config = await loadConfig(io, BundledExamples.config)
  const rawConfig = await readDocument(io, BundledExamples.config)
  const manifests = await loadManifests(io, [BundledExamples.runtime])
  if (Result.isFailure(config)) return config.failure
  if (Result.isFailure(rawConfig)) return rawConfig.failure
  if (Result.isFailure(manifests)) return manifests.failure
  const workload = reportingWorkload()
  const seeded = seededSimulator({ controllers: { trainer: { runTimeMs: 2000, onRun: workload.onRun } } }, manifests.success, [config.success.namespace])
  if ("problems" in seeded) return usage(seeded.problems)
  const token = randomBytes(24).toString("base64url")
  const service = await serve({
    tokens: [{ name: "demo", group: "demo", access: "write", tokenHash: hashToken(token, randomBytes(16)) }],
    dispatch: { cluster: SimCluster(seeded.simulator, { callMs: 5000 }), pollMs: 100, syncMs: 250 }
  })
  if (Result.isFailure(service)) return failed([service.failure.message])
  const server = service.success
  try {
    const call = clientOf(server.url, token)
    io.out(`dispatch demo service: the job service (Dioptra's job API) on in-memory PGlite at ${server.url}/api/v1,`)
    io.out("dispatching to an embedded simulated cluster whose workloads post their logs and metrics back.")
    io.out("")
    const runtime = config.success.runtimes[0]
    const queue = await created(call, "queue", "/queues", {
      name: "gpu",
      description: "the example backend",
      backend: { config: rawConfig.success, runtime, image: "registry.example.com/ml/resnet:1.4.2" }
    })
    const entrypoint = await created(call, "entrypoint", "/entrypoints", {
      name: "train",
      description: "trains a model",
      queues: [queue],
      parameters: [
        { name: "data_dir", type: "string" },
        { name: "epochs", type: "integer", defaultValue: "3" }
      ],
      artifactParameters: [],
      taskGraph,
      command: ["python", "-m", "train"]
    })
    const experiment = await created(call, "experiment", "/experiments", { name: "demo", entrypoints: [entrypoint] })
    io.out(`1. created  queue ${queue} (backend: ${config.success.mode} mode, namespace ${config.success.namespace}), entrypoint ${entrypoint} (swap ?optimizer), experiment ${experiment}`)
    const job = await created(call, "job", `/experiments/${experiment}/jobs`, {
      entrypoint,
      queue,
      values: { data_dir: "/data/imagenet", epochs: "5" },
      swaps: [{ swapName: "optimizer", taskAlias: "adam" }],
      timeout: "1h",
      description: "demo run"
    })
    io.out(`2. submit   POST /experiments/${experiment}/jobs -> job ${job}`)
    let last = ""
    // Every status the job went through, from its history: a poll that comes late (a busy machine)
    // still shows each one, in order.
    let shown = 0
    const deadline = Date.now() + FINISH_WITHIN_MS
    for (;;) {
      const answer = await call("GET", `/jobs/${job}/status`)
      const status = String(answer.body?.status)
      const history = (answer.body?.history ?? []) as ReadonlyArray<{ readonly status: string }>
      const trainJob = history.length > shown ? (await call("GET", `/jobs/${job}`)).body?.dispatch?.trainJob : undefined
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
    await workload.settled()
    const logs = await call("GET", `/jobs/${job}/log`)
    const metrics = await call("GET", `/jobs/${job}/metrics`)
    io.out("4. logs")
    for (const record of (logs.body?.data ?? []) as Array<{ severity: string; loggerName: string; message: string }>) {
      io.out(`   ${record.severity.padEnd(7)} ${record.loggerName}: ${record.message}`)
    }
    io.out("5. metrics")
    for (const metric of (metrics.body ?? []) as Array<{ name: string; step: number; value: number; specialValue?: string }>) {
      io.out(`   ${metric.name} = ${metric.specialValue ?? metric.value} (step ${metric.step})`)
    }
    return last === "finished" ? undefined : failed([`job ${job} ended ${last}`])
  } catch (error) {
    return failed([error instanceof Error ? error.message : String(error)])
  } finally {
    await server.close()
  }
}

/** Runs `dispatch demo service`; resolves to the exit code. */
const runDemoService = async (list: ArgList, io: CliIo): Promise<number> => {
  const options = readOptions(list, {})
  if (options.problems.length > 0) return endCommand(io, "demo service", "text", usage(options.problems))
  return endCommand(io, "demo service", "text", await run(io))
}

/** `dispatch demo service` as the CLI runs it. */
export const demoServiceCommand: CommandImpl = { check: (list) => readOptions(list, {}).problems, run: runDemoService }
