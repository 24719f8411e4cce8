/** What every refusal of this package carries, so the job service can answer HTTP without a lookup table. */
export interface Problem {
  readonly _tag: string
  readonly message: string
  /** The HTTP status Dioptra's API answers for this problem. */
  readonly status: 400 | 404 | 500
}

/** Every problem one request had, in the order upstream Dioptra checks them; at least one. */
export interface Refused<P extends Problem = Problem> {
  readonly _tag: "Refused"
  readonly problems: ReadonlyArray<P>
}

/** Wraps the problems found; callers pass every one they found, never just the first. */
export const refused = <P extends Problem>(problems: ReadonlyArray<P>): Refused<P> => ({ _tag: "Refused", problems })

// Upstream stops at its first failing check, so the status it would have answered is the first problem's.
/** The HTTP status for a refusal: the status of the problem upstream Dioptra would have hit first. */
export const httpStatus = (refusal: Refused): 400 | 404 | 500 => refusal.problems[0]?.status ?? 400

/** One problem as it appears in an error body: its kind, its message and its fields. */
export interface ProblemDetail {
  readonly error: string
  readonly message: string
  readonly [field: string]: unknown
}

/** Dioptra's error body `{error, message, detail}`, with every problem in `detail`. */
export interface ErrorBody {
  readonly error: string
  readonly message: string
  readonly detail: ReadonlyArray<ProblemDetail>
}

const detailOf = (problem: Problem): ProblemDetail => {
  const { _tag, ...fields } = { ...problem }
  return { ...fields, error: _tag, message: problem.message }
}

/** Renders a refusal as Dioptra's error body; `error` names the problem that decided the status. */
export const errorBody = (refusal: Refused): ErrorBody => ({
  error: refusal.problems[0]?._tag ?? "Refused",
  message: refusal.problems.map((p) => p.message).join("; "),
  detail: refusal.problems.map(detailOf)
})
