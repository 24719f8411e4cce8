import { type PathStep, valueAt } from "@dispatch/kube"
import { Result, Schema, SchemaIssue } from "effect"
import { isRecord } from "./Json.ts"
import { preview } from "./Preview.ts"
import { cappedRefusal, type Refusal } from "./Refusal.ts"

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/

/** A schema path written the way a reader would type it: `spec.command[2]`, `spec.env["A-B"]`. */
export const formatPath = (path: ReadonlyArray<PropertyKey>): string => {
  let out = ""
  for (const key of path) {
    if (typeof key === "string" && IDENTIFIER.test(key) && key.length <= 64) out += out === "" ? key : `.${key}`
    else if (typeof key === "string") out += `[${JSON.stringify(key.length > 64 ? `${key.slice(0, 64)}...` : key)}]`
    // An index, or a symbol: `[2]`, `[Symbol(s)]`.
    else out += `[${String(key)}]`
  }
  return out
}

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

// The value an issue is about. Every key but the last is one the schema walked into, so an object or array, and
// the last is there unless it is missing, which describe reports as "required" without the value. The
// guard is for a check of ours that names a path the input does not have: render never throws on input.
const issueValue = (input: unknown, keys: ReadonlyArray<PropertyKey>): unknown =>
  keys.some((key) => typeof key === "symbol") ? undefined : valueAt(input, keys as ReadonlyArray<PathStep>)

// effect's wording, made to read as a refusal, with the offending value shown (bounded).
const describe = (message: string, value: unknown): string => {
  if (message === "Missing key") return "required"
  if (message === "Expected no excess property") return "unknown field"
  const text = message.length > 200 ? `${message.slice(0, 200)}...` : message
  return `${text}, got ${preview(value)}`
}

/** Appends a formatted path to a field that is itself a path: `a` + `b[1]` is `a.b[1]`, `a` + `[1]` is `a[1]`. */
export const underField = (field: string) => (path: string): string => (path === "" ? field : path.startsWith("[") ? `${field}${path}` : `${field}.${path}`)

/**
 * Decodes unknown input with a wire schema, reporting every shape problem (unknown fields included) as
 * one ErrInvalid refusal; `name` turns a field's path ("" for the input itself) into the reason's subject.
 */
export const decodeWire = <S extends Schema.ConstraintDecoder<unknown>>(
  schema: S,
  input: unknown,
  name: (path: string) => string
): Result.Result<S["Type"], Refusal> => {
  const decoded = Schema.decodeUnknownResult(schema)(input, { errors: "all", onExcessProperty: "error" })
  if (Result.isSuccess(decoded)) return Result.succeed(decoded.success)
  const reasons = formatter(decoded.failure.issue).issues.map((issue) => {
    // effect's formatter gives every issue a path of plain keys, never Standard Schema's `{ key }`
    // segments or a missing path (its DefaultIssue), so the path is read as it is.
    const keys = (issue.path ?? []) as ReadonlyArray<PropertyKey>
    const path = formatPath(keys)
    return `${name(path)}: ${describe(issue.message, issueValue(input, keys))}`
  })
  return Result.fail(cappedRefusal("ErrInvalid", reasons))
}

/**
 * The top-level fields of `input` that decode on their own with `schema`'s field schemas, so that rule
 * checks can still run on them when another field has the wrong shape: a refusal then names every
 * problem, not just the shape ones.
 */
export const decodableFields = <F extends Schema.Struct.Fields>(schema: Schema.Struct<F>, input: unknown): Partial<Schema.Struct<F>["Type"]> => {
  if (!isRecord(input)) return {}
  const out: Record<string, unknown> = {}
  for (const [key, field] of Object.entries(schema.fields)) {
    if (!Object.hasOwn(input, key)) continue
    // One field as a struct of its own; the fields of a wire schema need no decoding services.
    const alone = Schema.Struct({ [key]: field }) as unknown as Schema.ConstraintDecoder<unknown>
    const decoded = Schema.decodeUnknownResult(alone)({ [key]: (input as Record<string, unknown>)[key] }, { onExcessProperty: "error" })
    if (Result.isSuccess(decoded)) out[key] = (decoded.success as Record<string, unknown>)[key]
  }
  return out as Partial<Schema.Struct<F>["Type"]>
}
