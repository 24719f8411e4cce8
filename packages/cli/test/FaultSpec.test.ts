import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import type { FaultRule } from "@dispatch/sim"
import { formatFault, parseFault } from "../src/FaultSpec.ts"

const rule: fc.Arbitrary<FaultRule> = fc.record(
  {
    verb: fc.constantFrom("create", "get", "list", "update", "patch", "delete", "watch" as const),
    resource: fc.stringMatching(/^[a-z]{1,20}$/),
    name: fc.stringMatching(/^[a-z0-9][a-z0-9.-]{0,30}$/),
    action: fc.oneof(
      fc.constantFrom({ type: "refuse" as const }, { type: "drop" as const }),
      fc.integer({ min: 0, max: 9_999_999 }).map((ms) => ({ type: "delay" as const, ms })),
      fc.integer({ min: 100, max: 599 }).map((code) => ({ type: "status" as const, code }))
    )
  },
  { requiredKeys: ["verb", "resource", "action"] }
)

describe("--fault rules", () => {
  test.prop([rule])("parseFault reads back what formatFault writes", (r) => {
    expect(parseFault(formatFault(r))).toEqual({ rule: r })
  })

  test.prop([fc.string({ maxLength: 40 })])("any text is either a rule or a problem naming it, never a throw", (text) => {
    const parsed = parseFault(text)
    if ("problem" in parsed) expect(parsed.problem).toContain(`--fault "${text}"`)
    else expect(parseFault(formatFault(parsed.rule))).toEqual(parsed)
  })

  it("names what is wrong", () => {
    expect(parseFault("create:trainjobs")).toMatchObject({ problem: expect.stringContaining("the action must be") })
    expect(parseFault("create:Train=drop")).toMatchObject({ problem: expect.stringContaining("plural") })
    expect(parseFault("create:trainjobs:a:b=drop")).toMatchObject({ problem: expect.stringContaining("too many parts") })
    expect(parseFault("create:trainjobs=delay:x")).toMatchObject({ problem: expect.stringContaining("the action must be") })
  })
})
