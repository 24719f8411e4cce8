// `dispatch render`: the runtime copy and the TrainJob a Start would create, or every reason it would
// be refused. Reads files only; talks to no cluster.
import { Result } from "effect"
import { type BackendConfig, type Manifests, type StartRequest, renderStart, runtimeRefOf } from "@dispatch/render"
import { stringify } from "yaml"
import { BundledExamples } from "../BundledExamples.ts"
import type { CliIo } from "../CliIo.ts"
import { endCommand } from "../CommandEnd.ts"
import { type Failure, refused, usage } from "../Failure.ts"
import { loadConfig, loadManifests, loadRequest } from "../Inputs.ts"
import { type RenderArgs, parseRenderArgs } from "../RenderArgs.ts"
import { Commands } from "../Commands.ts"
import { usageLine } from "../Usage.ts"
import { type ArgList, type CommandImpl, problemsOf as lineProblems } from "../FlagReader.ts"
import type { SeedObject } from "../RuntimeManifests.ts"

/** The runtime a request names, among the objects of the runtime files (undefined: render says it is missing). */
export const runtimeFor = (request: StartRequest, objects: ReadonlyArray<SeedObject>): unknown => {
  const ref = runtimeRefOf(request)
  if (Result.isFailure(ref)) return undefined
  return objects.find((o) => o.resource.kind === ref.success.kind && o.object.metadata?.["name"] === ref.success.name)?.object
}

/** Renders a request against the runtimes read from files; a refusal keeps render's kind and reasons. */
export const renderFromFiles = (request: StartRequest, config: BackendConfig, objects: ReadonlyArray<SeedObject>): Result.Result<Manifests, Failure> =>
  Result.mapError(renderStart(request, config, runtimeFor(request, objects)), (r) => refused(r.error, r.reasons))

/** The manifests as text: two YAML documents, or the JSON object `{runtimeCopy, trainJob}`. */
export const formatManifests = (manifests: Manifests, output: "yaml" | "json" | "text"): string =>
  output === "json"
    ? JSON.stringify({ runtimeCopy: manifests.runtimeCopy, trainJob: manifests.trainJob }, null, 2)
    : `${stringify(manifests.runtimeCopy)}---\n${stringify(manifests.trainJob)}`.trimEnd()

const render = async (io: CliIo, args: RenderArgs): Promise<Failure | undefined> => {
  const request = await loadRequest(io, args.request)
  const config = await loadConfig(io, args.config ?? BundledExamples.config)
  const runtimes = await loadManifests(io, args.runtimes)
  if (Result.isFailure(request) || Result.isFailure(config) || Result.isFailure(runtimes)) {
    return combine([request, config, runtimes].flatMap((r: Result.Result<unknown, Failure>) => (Result.isFailure(r) ? [r.failure] : [])))
  }
  const rendered = renderFromFiles(request.success, config.success, runtimes.success)
  if (Result.isFailure(rendered)) return rendered.failure
  io.out(formatManifests(rendered.success, args.output))
  return undefined
}

const problemsOf = (f: Failure): ReadonlyArray<string> => (f._tag === "Refused" ? f.reasons : f.problems)

/** Every file's problems at once: a usage failure when any file could not be read, else the files' refusal. */
const combine = (failures: ReadonlyArray<Failure>): Failure => {
  const refusal = failures.find((f) => f._tag === "Refused")
  const problems = failures.flatMap(problemsOf)
  return refusal?._tag === "Refused" && failures.every((f) => f._tag === "Refused") ? refused(refusal.error, problems) : usage(problems)
}

/** Runs `dispatch render`; resolves to the exit code. */
const runRender = async (list: ArgList, io: CliIo): Promise<number> => {
  const parsed = parseRenderArgs(list)
  if ("problems" in parsed) return endCommand(io, "render", "text", usage(parsed.problems, usageLine(Commands.render)))
  return endCommand(io, "render", parsed.args.output === "json" ? "json" : "text", await render(io, parsed.args))
}

/** `dispatch render` as the CLI runs it. */
export const renderCommand: CommandImpl = { check: (list) => lineProblems(parseRenderArgs(list)), run: runRender }
