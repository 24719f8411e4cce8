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
