// `dispatch demo`: the README's main job. On an embedded simulated cluster whose clock runs faster than
// real time: render the example, prove the backend with the Factory's probe, Start, Open, follow the
// job to its end with a progress line, and show what was created.
import { relative } from "node:path"
import { Clock, Effect, Result } from "effect"
import { type BackendConfig, type Manifests, runtimeLabel, runtimeRefOf } from "@dispatch/render"
import { type Backend, type FoundJob, find, open, probe, start } from "@dispatch/effects"
import type { KubeObject, Simulator } from "@dispatch/sim"
import { BundledExamples } from "../BundledExamples.ts"
import type { CliIo } from "../CliIo.ts"
import { commandLine } from "../ClusterArgs.ts"
import { openSession } from "../ClusterSession.ts"
import { endCommand } from "../CommandEnd.ts"
import { describeObjects } from "../CreatedObjects.ts"
import { type DemoArgs, parseDemoArgs } from "../DemoArgs.ts"
import { Commands } from "../Commands.ts"
import { usageLine } from "../Usage.ts"
import { type ArgList, type CommandImpl, problemsOf } from "../FlagReader.ts"
import { type Failure, failed, usage } from "../Failure.ts"
import { loadConfig, loadManifests, loadRequest } from "../Inputs.ts"
import { type OutputFormat, forPeople, printResult, takeOutput } from "../Output.ts"
import { runProgram } from "../RunProgram.ts"
import { probeFailure } from "./Probe.ts"
import { stateDetail } from "./Find.ts"
import { renderFromFiles } from "./Render.ts"

/** The resources the demo lists, in the order Start creates them. */
const shownResources = ["trainingruntimes", "trainjobs", "workloads"] as const

/** Every object of the config's namespace the demo shows, read straight from the embedded simulator. */
const objectsOf = (simulator: Simulator, config: BackendConfig): ReadonlyArray<KubeObject> =>
  shownResources.flatMap((resource) => simulator.system.list(resource, config.namespace))

/** The longest the demo follows a job, in simulated seconds: far beyond the example's run. */
const MAX_FOLLOW_SECONDS = 3600

const isFinal = (status: FoundJob): boolean => status.state === "Succeeded" || status.state === "Failed"

/** Finds the job once a simulated second until it ends, showing its state as a progress line. */
const follow = (io: CliIo, backend: Backend, key: { readonly job: string; readonly submission: number }) =>
  Effect.gen(function* () {
    const began = yield* Clock.currentTimeMillis
    let status = yield* find(backend, key)
    // Bounded: one simulated second per pass.
    for (let i = 0; i < MAX_FOLLOW_SECONDS && !isFinal(status); i++) {
      const seconds = Math.round(((yield* Clock.currentTimeMillis) - began) / 1000)
      yield* Effect.sync(() => io.progress(`5. follow  ${status.state}, ${seconds} s of simulated time`))
      yield* Effect.sleep(1000)
      status = yield* find(backend, key)
    }
    return { status, seconds: Math.round(((yield* Clock.currentTimeMillis) - began) / 1000) }
  })

const step = (io: CliIo, n: number, name: string, lines: ReadonlyArray<string>): void => {
  lines.forEach((line, i) => io.out(`${i === 0 ? `${n}. ${name.padEnd(8)}` : " ".repeat(11)}${line}`))
}

/** A step's lines, printed as the program reaches it. */
const shout = (io: CliIo, n: number, name: string, lines: ReadonlyArray<string>): Effect.Effect<void> => Effect.sync(() => step(io, n, name, lines))

/** What `dispatch demo -o json|yaml` prints: the job, how it ended, and what was created. */
export interface DemoSummary {
  readonly namespace: string
  readonly mode: BackendConfig["mode"]
  readonly job: string
  readonly submission: number
  readonly trainJob: string
  readonly uid: string
  readonly state: FoundJob["state"]
  readonly simulatedSeconds: number
  /** The namespace's runtimes, TrainJobs and Workloads at the end, as the text's "Created in namespace" lists them. */
  readonly objects: ReadonlyArray<{ readonly kind: string; readonly name: string }>
  readonly render: string
}

const demo = async (io: CliIo, args: DemoArgs, output: OutputFormat): Promise<Failure | undefined> => {
  // With -o json|yaml, stdout is the summary alone: the steps go to stderr.
  const result = io
  io = forPeople(io, output)
  const shown = (file: string) => relative(io.cwd, file) || file
  const requestFile = args.request ?? BundledExamples.request
  const runtimeFiles = args.runtimes.length > 0 ? args.runtimes : [BundledExamples.runtime]
  const request = await loadRequest(io, requestFile)
  if (Result.isFailure(request)) return request.failure
  const config = await loadConfig(io, args.config ?? BundledExamples.config)
  if (Result.isFailure(config)) return config.failure
  const runtimes = await loadManifests(io, runtimeFiles)
  if (Result.isFailure(runtimes)) return runtimes.failure

  io.out(`dispatch demo: an embedded simulated cluster (Kubeflow Trainer${config.success.mode === "kueue" ? " and Kueue" : ""}, ${config.success.mode} mode); nothing leaves this machine.`)
  io.out(`Its clock runs ${args.speed}x faster than real time, so simulated seconds pass in a blink.`)
  io.out("")

  const rendered = renderFromFiles(request.success, config.success, runtimes.success)
  if (Result.isFailure(rendered)) return rendered.failure
  const manifests: Manifests = rendered.success
  const ref = runtimeRefOf(request.success)
  step(io, 1, "render", [
    `${shown(requestFile)} on ${Result.isSuccess(ref) ? runtimeLabel(ref.success) : "its runtime"} (${runtimeFiles.map(shown).join(", ")})`,
    `-> TrainingRuntime ${manifests.namespace}/${manifests.name} (a private copy) and TrainJob ${manifests.namespace}/${manifests.name}`
  ])

  const session = await openSession(io, { _tag: "Sim", runtimes: runtimeFiles, exec: args.exec }, config.success)
  if (Result.isFailure(session)) return session.failure
  const simulator = session.success.simulator
  if (simulator === undefined) return usage(["the demo needs the embedded simulator"])

  const key = { job: request.success.job, submission: request.success.submission }
  let uid = ""
  let ended: { readonly state: FoundJob["state"]; readonly seconds: number } | undefined
  const program = Effect.gen(function* () {
    const report = yield* probe(config.success)
    const unproven = probeFailure(report)
    yield* shout(io, 2, "probe", [report.gate.state === "open" ? "backend open: reach, write and launch proven; the probe left nothing behind" : `backend ${report.gate.state}`])
    if (unproven !== undefined) return unproven
    const backend: Backend = { config: config.success, gate: report.gate }
    const started = yield* start(backend, request.success)
    uid = started.uid
    yield* shout(io, 3, "start", [`${started.ref} created (uid ${started.uid}), its start gate closed`])
    yield* open(backend, key)
    yield* shout(io, 4, "open", [config.success.mode === "kueue" ? "dispatch's admission gate removed, its admission check Ready" : "spec.suspend set to false"])
    const { status, seconds } = yield* follow(io, backend, key)
    ended = { state: status.state, seconds }
    const detail = stateDetail(status)
    yield* shout(io, 5, "follow", [`${status.state}${detail === "" ? "" : ` (${detail})`} after ${seconds} s of simulated time`])
    return status.state === "Succeeded" ? undefined : failed([`the job ended ${status.state}${detail === "" ? "" : `: ${detail}`}`])
  })
  const ran = await runProgram(program, session.success, args.speed)
  await session.success.close()
  if (Result.isFailure(ran)) return ran.failure
  if (ran.success !== undefined) return ran.success

  const created = objectsOf(simulator, config.success)
  io.out("")
  io.out(`Created in namespace ${config.success.namespace}:`)
  for (const line of describeObjects(created, config.success)) io.out(`  ${line}`)
  io.out("")
  const configFlags = args.config === undefined ? [] : ["--config", shown(args.config)]
  const render = commandLine(["dispatch", "render", "--request", shown(requestFile), "--runtime", ...runtimeFiles.map(shown), ...configFlags])
  io.out(`See them in full: ${render}`)
  if (output !== "text") {
    const summary: DemoSummary = {
      namespace: config.success.namespace,
      mode: config.success.mode,
      job: key.job,
      submission: key.submission,
      trainJob: `${manifests.namespace}/${manifests.name}`,
      uid,
      state: ended?.state ?? "Succeeded",
      simulatedSeconds: ended?.seconds ?? 0,
      objects: created.map((o) => ({ kind: String(o.kind), name: String(o.metadata?.["name"] ?? "") })),
      render
    }
    printResult(result, output, summary, [])
  }
  return undefined
}

/** Runs `dispatch demo`; resolves to the exit code. */
const runDemo = async (list: ArgList, io: CliIo): Promise<number> => {
  const { output, rest, problems } = takeOutput(Commands.demo, list)
  const parsed = parseDemoArgs(rest)
  const all = [...problems, ...problemsOf(parsed)]
  if ("problems" in parsed || all.length > 0) return endCommand(io, "demo", "text", usage(all, usageLine(Commands.demo)))
  return endCommand(io, "demo", output, await demo(io, parsed.args, output))
}

/** `dispatch demo` as the CLI runs it. */
export const demoCommand: CommandImpl = {
  check: (list) => {
    const { rest, problems } = takeOutput(Commands.demo, list)
    return [...problems, ...problemsOf(parseDemoArgs(rest))]
  },
  run: runDemo
}
