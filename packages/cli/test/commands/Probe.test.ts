// How `dispatch probe` prints its report and which exit code a failed probe ends with.
import { fc, test } from "@fast-check/vitest"
import { describe, expect } from "vitest"
import type { ProbeReport } from "@dispatch/effects"
import { ExitCode } from "../../src/ExitCode.ts"
import { exitCodeOfFailure } from "../../src/Failure.ts"
import { probeFailure, probeLines } from "../../src/commands/Probe.ts"

const proof = fc.record({ proven: fc.boolean(), reasons: fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 }) })

const gate = fc.oneof(
  fc.constant({ state: "open" as const }),
  fc.record({ state: fc.constantFrom("closed" as const, "read-only" as const, "observe-only" as const), reason: fc.string({ maxLength: 20 }) })
)

const report: fc.Arbitrary<ProbeReport> = fc.record({ gate, reach: proof, write: proof, launch: proof, leftovers: fc.array(fc.string({ maxLength: 20 }), { maxLength: 2 }) })

describe("probe results", () => {
  test.prop([report])("exit by the first gate not proven, as Start's step 1 refuses; leftovers alone are a failure", (r) => {
    const failure = probeFailure(r)
    const expected = { open: r.leftovers.length === 0 ? ExitCode.ok : ExitCode.failure, closed: ExitCode.ErrUnreachable, "read-only": ExitCode.ErrReadOnly, "observe-only": ExitCode.ErrUnsupported }[r.gate.state]
    expect(failure === undefined ? ExitCode.ok : exitCodeOfFailure(failure)).toBe(expected)
    const lines = probeLines(r)
    expect(lines[0]).toMatch(new RegExp(`^backend ${r.gate.state}`))
    // Every reason of every gate not proven is shown.
    for (const proof of [r.reach, r.write, r.launch]) {
      for (const reason of proof.proven ? [] : proof.reasons) expect(lines).toContain(`           - ${reason}`)
    }
  })
})
