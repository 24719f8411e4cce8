import { Result, Schema, SchemaIssue } from "effect"
import { ArtifactRef } from "./Artifact.ts"
import { refused, type Refused } from "./Problem.ts"
import { ResourceId } from "./ResourceId.ts"
import { SwapsInput } from "./SwapSelection.ts"
import { Description, Name, Text, textLimits } from "./Text.ts"

/** The body of `POST /experiments/{id}/jobs`; the experiment comes from the path. */
export const JobRequest = Schema.Struct({
  entrypoint: ResourceId,
  queue: ResourceId,
  values: Schema.optionalKey(Schema.Record(Name, Description)),
  artifactValues: Schema.optionalKey(Schema.Record(Name, ArtifactRef)),
  // A bare integer is seconds, as in the string form; either way the grammar is checked at creation.
  timeout: Schema.optionalKey(Schema.NullOr(Schema.Union([Text(textLimits.name), Schema.Number]))),
  description: Schema.optionalKey(Schema.NullOr(Description)),
  entrypointSnapshot: Schema.optionalKey(Schema.NullOr(ResourceId)),
  swaps: Schema.optionalKey(Schema.NullOr(SwapsInput))
})
/** The body of a job creation request. */
export type JobRequest = typeof JobRequest.Type

/** A field of the request body has the wrong shape. */
export class MalformedRequest extends Schema.TaggedError<MalformedRequest>()("MalformedRequest", {
  path: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return this.path === "" ? `request body: ${this.detail}` : `request body field ${this.path}: ${this.detail}`
  }
  get status() {
    return 400 as const
  }
}

const formatter = SchemaIssue.makeFormatterStandardSchemaV1({
  leafHook: (issue) => (issue._tag === "UnexpectedKey" ? "unknown field" : SchemaIssue.defaultLeafHook(issue))
})

const pathText = (path: ReadonlyArray<unknown>): string =>
  path.map((p) => (typeof p === "object" && p !== null && "key" in p ? String(p.key) : String(p))).join(".")

/** How a request body is decoded: every problem at once, and a field the request does not define is one of them. */
export const jobRequestParseOptions = { errors: "all", onExcessProperty: "error" } as const

/** Decodes a request body, naming every malformed or unknown field at once. */
export const decodeJobRequest = (body: unknown): Result.Result<JobRequest, Refused<MalformedRequest>> => {
  const decoded = Schema.decodeUnknownResult(JobRequest)(body, jobRequestParseOptions)
  if (Result.isSuccess(decoded)) return Result.succeed(decoded.success)
  const problems = formatter(decoded.failure.issue).issues.map(
    (issue) => new MalformedRequest({ path: pathText(issue.path ?? []), detail: issue.message })
  )
  return Result.fail(refused(problems))
}
