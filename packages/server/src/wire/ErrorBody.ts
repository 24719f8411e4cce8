import { Schema } from "effect"
import type { Refusal, ServiceProblem } from "./ServiceProblem.ts"

/** Dioptra's error body: the deciding problem's kind, every message, and every problem with its fields. */
export const ErrorBody = Schema.Struct({
  error: Schema.String,
  message: Schema.String,
  detail: Schema.Array(Schema.Record(Schema.String, Schema.Unknown))
})
/** Dioptra's error body. */
export type ErrorBody = typeof ErrorBody.Type

const detailOf = (problem: ServiceProblem): Record<string, unknown> => {
  const { _tag, ...fields } = { ...problem }
  return { ...fields, error: _tag, message: problem.message }
}

/** The HTTP status of a refusal: its first problem's, as upstream stops at its first failing check. */
export const refusalStatus = (refused: Refusal): number => refused.problems[0].status

/** Renders a refusal as `{error, message, detail}`. */
export const errorBody = (refused: Refusal): ErrorBody => ({
  error: refused.problems[0]._tag,
  message: refused.problems.map((p) => p.message).join("; "),
  detail: refused.problems.map(detailOf)
})
