import { Result, Schema, SchemaIssue } from "effect"
import { InvalidRequest, refusal, type Refusal } from "../wire/ServiceProblem.ts"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

const pathText = (path: ReadonlyArray<unknown>): string =>
  path.map((p) => (typeof p === "object" && p !== null && "key" in p ? String(p.key) : String(p))).join(".")

/** Decodes one part of a request with its schema, naming every malformed field at once. */
export const decodePart = <S extends Schema.ConstraintDecoder<unknown>>(
  schema: S,
  part: "body" | "path" | "query",
  input: unknown
): Result.Result<S["Type"], Refusal> => {
  const decoded = Schema.decodeUnknownResult(schema)(input, { errors: "all", onExcessProperty: part === "query" ? "error" : "ignore" })
  if (Result.isSuccess(decoded)) return Result.succeed(decoded.success)
  const [first, ...rest] = formatter(decoded.failure.issue).issues.map(
    (issue) => new InvalidRequest({ part, path: pathText(issue.path ?? []), detail: issue.message })
  )
  return Result.fail(refusal(first ?? new InvalidRequest({ part, path: "", detail: "does not match its schema" }), ...rest))
}
