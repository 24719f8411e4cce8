// `dispatch serve`'s cleanup settings: --retention and --sweep-grace, or their environment variables.
import { describe, expect, it } from "vitest"
import type { ArgList } from "../src/FlagReader.ts"
import { parseServeArgs } from "../src/ServeArgs.ts"

/** Flags as effect/cli reads them: each name with its values. */
const flagsOf = (flags: Record<string, string> = {}): ArgList => ({ flags: new Map(Object.entries(flags).map(([k, v]) => [k, [v]])), positional: [] })

const argsOf = (flags: Record<string, string>, env: Record<string, string> = {}) => {
  const parsed = parseServeArgs(flagsOf(flags), env)
  if ("problems" in parsed) throw new Error(parsed.problems.join("; "))
  return parsed.args
}

describe("dispatch serve's retention and sweeper grace", () => {
  it("are absent unless given, so the service's defaults (24h, 1h) apply", () => {
    const args = argsOf({})
    expect(args.retentionMs).toBeUndefined()
    expect(args.sweepGraceMs).toBeUndefined()
  })

  it("take kubectl's durations from the flags", () => {
    expect(argsOf({ retention: "48h", "sweep-grace": "90m" })).toMatchObject({ retentionMs: 48 * 3_600_000, sweepGraceMs: 90 * 60_000 })
    expect(argsOf({ retention: "0" }).retentionMs).toBe(0)
  })

  it("take them from DISPATCH_RETENTION and DISPATCH_SWEEP_GRACE when no flag gives them; a flag wins", () => {
    const env = { DISPATCH_RETENTION: "2h", DISPATCH_SWEEP_GRACE: "30m" }
    expect(argsOf({}, env)).toMatchObject({ retentionMs: 2 * 3_600_000, sweepGraceMs: 30 * 60_000 })
    expect(argsOf({ retention: "5m" }, env)).toMatchObject({ retentionMs: 5 * 60_000, sweepGraceMs: 30 * 60_000 })
    expect(argsOf({}, { DISPATCH_RETENTION: "" }).retentionMs).toBeUndefined()
  })

  it("refuse what is not a duration, naming the flag or the variable, every problem at once", () => {
    expect(parseServeArgs(flagsOf({ retention: "a day" }), { DISPATCH_SWEEP_GRACE: "-1h" })).toEqual({
      _tag: "UsageError",
      problems: ['--retention "a day" is not a duration (e.g. 30s, 5m, 24h)', 'DISPATCH_SWEEP_GRACE "-1h" is not a duration (e.g. 30s, 5m, 24h)']
    })
  })
})
