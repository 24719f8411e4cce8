// A JobID is a ULID in its canonical form: 26 upper-case Crockford base32 characters (no I, L, O, U),
// the first at most 7 so the 128-bit value does not overflow. Lower case is refused so that one job has
// exactly one spelling in its labels.
const JOB_ID = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/

/** True when `job` is a canonical ULID. */
export const isJobId = (job: string): boolean => JOB_ID.test(job)
