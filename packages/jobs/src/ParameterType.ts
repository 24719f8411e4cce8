import { Result, Schema } from "effect"
import { jsonDepth, maxJsonDepth } from "./JsonDepth.ts"

/** The types an entrypoint parameter may declare. */
export const ParameterType = Schema.Literals(["string", "float", "integer", "boolean", "list", "mapping"])
/** The type of an entrypoint parameter. */
export type ParameterType = typeof ParameterType.Type

/** A parameter value after coercion: what the job's container receives in its JSON document. */
export type ParameterValue = Schema.Json

const floatLiteral = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/
const integerLiteral = /^[+-]?[0-9]+$/
const booleanLiteral = /^(?:true|false)$/i

/** Whether values of the type are JSON text that coercion parses (`list`, `mapping`). */
export const parsesJson = (type: ParameterType): boolean => type === "list" || type === "mapping"

/** How deep the JSON a value of the type parses into nests (0 for types that parse none); counts no further than
 * one past `limit`, so a hostile value costs one pass over its text. */
export const valueDepth = (type: ParameterType, raw: string, limit = maxJsonDepth): number => (parsesJson(type) ? jsonDepth(raw, limit) : 0)

// Parsing is bounded by depth first: V8's parser copes with any depth, but the first recursive walk of the result
// (storing it, answering it) would not.
const parseJson = (raw: string): Result.Result<Schema.Json, string> => {
  if (jsonDepth(raw, maxJsonDepth) > maxJsonDepth) return Result.fail(`it nests deeper than ${maxJsonDepth} levels`)
  try {
    return Result.succeed(JSON.parse(raw) as Schema.Json)
  } catch {
    return Result.fail("it is not valid JSON")
  }
}

const isMapping = (value: Schema.Json): boolean => typeof value === "object" && value !== null && !Array.isArray(value)

// Values travel as strings (Dioptra's wire format) and reach the container as JSON, so a value that JSON
// cannot carry exactly (NaN, an integer past 2^53) is refused here rather than silently altered later.
/** Coerces a wire value to its parameter type, or says why it cannot be. */
export const coerceValue = (type: ParameterType, raw: string): Result.Result<ParameterValue, string> => {
  switch (type) {
    case "string":
      return Result.succeed(raw)
    case "float": {
      if (!floatLiteral.test(raw)) return Result.fail("it is not a decimal number")
      const value = Number(raw)
      return Number.isFinite(value) ? Result.succeed(value) : Result.fail("it is too large to be a finite float")
    }
    case "integer": {
      if (!integerLiteral.test(raw)) return Result.fail("it is not a whole number")
      const value = Number(raw)
      return Number.isSafeInteger(value)
        ? Result.succeed(value)
        : Result.fail("it is outside the integers JSON carries exactly (|n| <= 2^53 - 1)")
    }
    case "boolean":
      return booleanLiteral.test(raw) ? Result.succeed(raw.toLowerCase() === "true") : Result.fail('it is neither "true" nor "false"')
    case "list":
      return Result.flatMap(parseJson(raw), (value) => (Array.isArray(value) ? Result.succeed(value) : Result.fail("it is not a JSON list")))
    case "mapping":
      return Result.flatMap(parseJson(raw), (value) => (isMapping(value) ? Result.succeed(value) : Result.fail("it is not a JSON object")))
  }
}
