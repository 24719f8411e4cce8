// Loading the files a command names: requests and configs (one YAML or JSON document each) and runtime
// manifests. A file that cannot be read or parsed is a usage failure; one of the wrong shape is the
// ErrInvalid render gives it, each reason prefixed with the file.
import { Result } from "effect"
import { type BackendConfig, type Refusal, type StartRequest, decodeConfig, decodeStartRequest } from "@dispatch/render"
import type { CliIo } from "./CliIo.ts"
import { type Failure, refused, usage } from "./Failure.ts"
import { parseInputDocument } from "./InputFile.ts"
import { type SeedObject, parseManifests } from "./RuntimeManifests.ts"

/** A file's one document, or a usage failure naming the file. */
export const readDocument = async (io: CliIo, file: string): Promise<Result.Result<unknown, Failure>> => {
  const read = await io.readFile(file)
  if ("error" in read) return Result.fail(usage([`cannot read ${file}: ${read.error}`]))
  const parsed = parseInputDocument(file, read.text)
  return "value" in parsed ? Result.succeed(parsed.value) : Result.fail(usage(parsed.problems))
}

const decodeFile = async <A>(io: CliIo, file: string, decode: (input: unknown) => Result.Result<A, Refusal>): Promise<Result.Result<A, Failure>> => {
  const document = await readDocument(io, file)
  if (Result.isFailure(document)) return Result.fail(document.failure)
  return Result.mapError(decode(document.success), (r) => refused(r.error, r.reasons.map((reason) => `${file}: ${reason}`)))
}

/** Reads and decodes a StartRequest file. */
export const loadRequest = (io: CliIo, file: string): Promise<Result.Result<StartRequest, Failure>> => decodeFile(io, file, decodeStartRequest)

/** Reads and decodes a backend config file, with render's defaults applied. */
export const loadConfig = (io: CliIo, file: string): Promise<Result.Result<BackendConfig, Failure>> => decodeFile(io, file, decodeConfig)

/** Reads the objects of every manifest file; every problem of every file at once. */
export const loadManifests = async (io: CliIo, files: ReadonlyArray<string>): Promise<Result.Result<ReadonlyArray<SeedObject>, Failure>> => {
  const objects: Array<SeedObject> = []
  const problems: Array<string> = []
  for (const file of files) {
    const read = await io.readFile(file)
    if ("error" in read) {
      problems.push(`cannot read ${file}: ${read.error}`)
      continue
    }
    const parsed = parseManifests(file, read.text)
    if ("objects" in parsed) objects.push(...parsed.objects)
    else problems.push(...parsed.problems.map((p) => `${file}: ${p}`))
  }
  return problems.length > 0 ? Result.fail(usage(problems)) : Result.succeed(objects)
}
