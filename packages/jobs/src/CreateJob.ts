import { Result } from "effect"
import type { ArtifactRef } from "./Artifact.ts"
import type { Catalog } from "./Catalog.ts"
import { entrypointVersion, type Entrypoint, type EntrypointVersion } from "./Entrypoint.ts"
import { documentEnv, jobDocument, type DocumentTooLarge } from "./JobDocument.ts"
import { decodeJobRequest, type JobRequest, type MalformedRequest } from "./JobRequest.ts"
import { coerceValue, valueDepth, type ParameterValue } from "./ParameterType.ts"
import { maxJsonDepth } from "./JsonDepth.ts"
import { refused, type Refused } from "./Problem.ts"
import type { Queue } from "./Queue.ts"
import {
  EntrypointNotFound,
  EntrypointNotInExperiment,
  ExperimentNotFound,
  NoCommand,
  NoImage,
  QueueNotAllowed,
  QueueNotFound,
  SnapshotNotFound,
  type ReferenceProblem
} from "./ReferenceProblem.ts"
import type { SwapProblem } from "./SwapProblem.ts"
import { chooseSwaps, swapSelections } from "./SwapSelection.ts"
import { defaultTimeout, parseTimeout, type InvalidTimeout } from "./Timeout.ts"
import {
  ArtifactNotFound,
  ArtifactTypeMismatch,
  MissingArtifactValue,
  MissingValue,
  UncoercibleValue,
  ValueTooDeep,
  UnknownArtifactValue,
  UnknownValue,
  type ValueProblem
} from "./ValueProblem.ts"

/** Every reason a job creation request can be refused. */
export type JobProblem = MalformedRequest | ReferenceProblem | ValueProblem | SwapProblem | InvalidTimeout | DocumentTooLarge

/** A request that passed every check: what a new job is made of. */
export interface AcceptedJob {
  readonly experiment: number
  readonly entrypoint: number
  readonly entrypointSnapshot: number
  readonly queue: number
  readonly values: Readonly<Record<string, ParameterValue>>
  readonly artifactValues: Readonly<Record<string, ArtifactRef>>
  readonly swaps: Readonly<Record<string, string>>
  readonly timeoutSeconds: number
  /** The timeout as the request gave it (`"24h"` stays `"24h"`), or the default. */
  readonly timeout: string
  readonly description: string
}

const nameList = (items: ReadonlyArray<{ readonly name: string }>) => items.map((item) => item.name)

// Upstream's three passes, each reported whole before the next: unknown names, then values still
// missing once defaults are filled in, then values (defaults included) that do not coerce.
const checkValues = (version: EntrypointVersion, given: Readonly<Record<string, string>>) => {
  const unknown: Array<ValueProblem> = Object.keys(given)
    .filter((name) => !version.parameters.some((p) => p.name === name))
    .map((parameter) => new UnknownValue({ parameter, known: nameList(version.parameters) }))
  const filled = version.parameters.map((parameter) => {
    const fromDefault = !Object.hasOwn(given, parameter.name)
    return { parameter, fromDefault, raw: fromDefault ? parameter.defaultValue : given[parameter.name] }
  })
  const missing: Array<ValueProblem> = filled.flatMap(({ parameter, raw }) => (raw === undefined ? [new MissingValue({ parameter: parameter.name })] : []))
  const uncoercible: Array<ValueProblem> = []
  const values: Array<[string, ParameterValue]> = []
  for (const { parameter, fromDefault, raw } of filled) {
    if (raw === undefined) continue
    if (valueDepth(parameter.type, raw) > maxJsonDepth) {
      uncoercible.push(new ValueTooDeep({ parameter: parameter.name, type: parameter.type, fromDefault, limit: maxJsonDepth, length: raw.length }))
      continue
    }
    const coerced = coerceValue(parameter.type, raw)
    if (Result.isSuccess(coerced)) values.push([parameter.name, coerced.success])
    else uncoercible.push(new UncoercibleValue({ parameter: parameter.name, type: parameter.type, value: raw, fromDefault, reason: coerced.failure }))
  }
  return { problems: [...unknown, ...missing, ...uncoercible], values: Object.fromEntries(values) }
}

const checkArtifactValues = (version: EntrypointVersion, given: Readonly<Record<string, ArtifactRef>>, catalog: Catalog) => {
  const problems: Array<ValueProblem> = Object.keys(given)
    .filter((name) => !version.artifactParameters.some((p) => p.name === name))
    .map((parameter) => new UnknownArtifactValue({ parameter, known: nameList(version.artifactParameters) }))
  for (const parameter of version.artifactParameters) {
    const ref = Object.hasOwn(given, parameter.name) ? given[parameter.name] : undefined
    if (ref === undefined) {
      problems.push(new MissingArtifactValue({ parameter: parameter.name }))
      continue
    }
    const artifact = catalog.artifact(ref.id)
    if (artifact === undefined || !artifact.snapshots.includes(ref.snapshotId)) {
      problems.push(new ArtifactNotFound({ parameter: parameter.name, artifact: ref.id, snapshot: ref.snapshotId }))
    } else if (artifact.artifactType !== parameter.artifactType) {
      problems.push(new ArtifactTypeMismatch({ parameter: parameter.name, artifact: ref.id, expected: parameter.artifactType, actual: artifact.artifactType }))
    }
  }
  const artifactValues = version.artifactParameters.flatMap((p): Array<[string, ArtifactRef]> => {
    const ref = Object.hasOwn(given, p.name) ? given[p.name] : undefined
    return ref === undefined ? [] : [[p.name, ref]]
  })
  return { problems, artifactValues: Object.fromEntries(artifactValues) }
}

// The references, in upstream's order: experiment, entrypoint and its registration, queue and its
// permission, snapshot. A check that needs a resource that is missing is skipped, not failed twice.
const checkReferences = (experimentId: number, request: JobRequest, catalog: Catalog) => {
  const problems: Array<ReferenceProblem> = []
  const experiment = catalog.experiment(experimentId)
  if (experiment === undefined) problems.push(new ExperimentNotFound({ experiment: experimentId }))
  const entrypoint: Entrypoint | undefined = catalog.entrypoint(request.entrypoint)
  if (entrypoint === undefined) problems.push(new EntrypointNotFound({ entrypoint: request.entrypoint }))
  else if (experiment !== undefined && !experiment.entrypoints.includes(entrypoint.id)) {
    problems.push(new EntrypointNotInExperiment({ entrypoint: entrypoint.id, experiment: experiment.id }))
  }
  const queue: Queue | undefined = catalog.queue(request.queue)
  if (queue === undefined) problems.push(new QueueNotFound({ queue: request.queue }))
  else if (entrypoint !== undefined && !entrypoint.queues.includes(queue.id)) {
    problems.push(new QueueNotAllowed({ queue: queue.id, entrypoint: entrypoint.id, allowed: entrypoint.queues }))
  }
  const version = entrypoint === undefined ? undefined : entrypointVersion(entrypoint, request.entrypointSnapshot)
  if (entrypoint !== undefined && version === undefined) {
    problems.push(new SnapshotNotFound({ entrypoint: entrypoint.id, snapshot: request.entrypointSnapshot ?? 0 }))
  }
  // A queue without a backend yet takes the job; it waits, saying why, until the queue gets one.
  const backend = queue?.backend
  if (version !== undefined && queue !== undefined && backend !== undefined && version.image === undefined && backend.image === undefined) {
    problems.push(new NoImage({ entrypoint: request.entrypoint, queue: queue.id }))
  }
  if (version !== undefined && queue !== undefined && backend !== undefined && version.command === undefined && backend.command === undefined) {
    problems.push(new NoCommand({ entrypoint: request.entrypoint, queue: queue.id }))
  }
  return { problems, version }
}

/** Checks a decoded request against the catalog, reporting every problem at once, in upstream's order. */
export const validateJobRequest = (
  experimentId: number,
  request: JobRequest,
  catalog: Catalog
): Result.Result<AcceptedJob, Refused<JobProblem>> => {
  const references = checkReferences(experimentId, request, catalog)
  const givenTimeout = String(request.timeout ?? defaultTimeout)
  const timeout = parseTimeout(givenTimeout)
  const timeoutProblems = Result.isFailure(timeout) ? [timeout.failure] : []
  const version = references.version
  if (version === undefined) return Result.fail(refused([...references.problems, ...timeoutProblems]))
  const values = checkValues(version, request.values ?? {})
  const artifacts = checkArtifactValues(version, request.artifactValues ?? {}, catalog)
  const swaps = chooseSwaps(version.taskGraph, swapSelections(request.swaps))
  const swapProblems = Result.isFailure(swaps) ? swaps.failure : []
  const problems = [...references.problems, ...values.problems, ...artifacts.problems, ...swapProblems, ...timeoutProblems]
  if (problems.length > 0 || Result.isFailure(swaps) || Result.isFailure(timeout)) return Result.fail(refused(problems))
  const accepted: AcceptedJob = {
    experiment: experimentId,
    entrypoint: request.entrypoint,
    entrypointSnapshot: version.snapshot,
    queue: request.queue,
    values: values.values,
    artifactValues: artifacts.artifactValues,
    swaps: swaps.success.swaps,
    timeoutSeconds: timeout.success,
    timeout: givenTimeout,
    description: request.description ?? ""
  }
  const env = documentEnv(jobDocument(accepted, swaps.success.graph))
  return Result.isFailure(env) ? Result.fail(refused([env.failure])) : Result.succeed(accepted)
}

/** Decodes a request body and validates it: the whole of job creation short of storing the job. */
export const createJobRequest = (
  experimentId: number,
  body: unknown,
  catalog: Catalog
): Result.Result<AcceptedJob, Refused<JobProblem>> => {
  const request = decodeJobRequest(body)
  return Result.isFailure(request) ? Result.fail(request.failure) : validateJobRequest(experimentId, request.success, catalog)
}
