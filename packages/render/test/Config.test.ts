import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { decodeConfig, type BackendConfig, type Refusal } from "../src/index.ts"

const decoded = (input: unknown): BackendConfig => {
  const r = decodeConfig(input)
  if (Result.isFailure(r)) throw new Error(JSON.stringify(r.failure))
  return r.success
}
const refused = (input: unknown): Refusal => {
  const r = decodeConfig(input)
  if (Result.isSuccess(r)) throw new Error("decoded, expected a refusal")
  return r.failure
}
const runtimes = [{ kind: "TrainingRuntime", name: "torch-a" }, { kind: "ClusterTrainingRuntime", name: "torch-b" }]

describe("decodeConfig", () => {
  it("applies the documented defaults", () => {
    expect(decoded({ namespace: "ml", mode: "plain", runtimes })).toEqual({
      namespace: "ml",
      mode: "plain",
      runtimes,
      gpuResource: "nvidia.com/gpu",
      probeRuntime: runtimes[0],
      timeouts: { callMs: 30_000, workloadMs: 120_000, callBoundMs: 300_000 },
      labelDomain: "dispatch.phpboyscout.uk"
    })
  })

  it("keeps what is given, timeouts as seconds or Go durations", () => {
    const c = decoded({
      namespace: "ml",
      mode: "kueue",
      runtimes,
      probeRuntime: runtimes[1],
      gpuResource: "amd.com/gpu",
      kueue: { queue: "team-q", admissionCheck: "dispatch" },
      timeouts: { call: 2.5, workload: "1m30s", callBound: "10s" },
      labelDomain: "example.org"
    })
    expect(c.timeouts).toEqual({ callMs: 2_500, workloadMs: 90_000, callBoundMs: 10_000 })
    expect(c.probeRuntime).toEqual(runtimes[1])
    expect(c.kueue).toEqual({ queue: "team-q", admissionCheck: "dispatch" })
  })

  it("reports every problem at once", () => {
    expect(
      refused({
        namespace: "ML_team",
        mode: "kueue",
        runtimes: [{ kind: "TrainingRuntime", name: "Bad Name" }],
        probeRuntime: { kind: "TrainingRuntime", name: "other" },
        gpuResource: "/gpu",
        timeouts: { call: "1m", workload: 0, callBound: "30s" },
        labelDomain: `${"a".repeat(60)}.org`
      }).reasons
    ).toEqual([
      'config namespace: "ML_team" is not a DNS-1123 label',
      'config runtimes[0].name: "Bad Name" is not a DNS-1123 subdomain',
      'config gpuResource: "/gpu" is not a resource name',
      `config labelDomain: "${"a".repeat(60)}.org" is too long: ${"a".repeat(60)}.org/start must fit in 63 characters`,
      "config probeRuntime: TrainingRuntime/other is not one of the configured runtimes",
      "config kueue: required in kueue mode",
      "config timeouts.workload: must be above zero, got 0",
      "config timeouts.callBound: must be at least timeouts.call (60000 ms), got 30000 ms"
    ])
  })

  it("refuses an empty runtime list and wrong shapes", () => {
    expect(refused({ namespace: "ml", mode: "plain", runtimes: [] }).reasons).toEqual(["config runtimes: must list at least one runtime"])
    expect(refused({ namespace: "ml", mode: "other", runtimes: [{ kind: "Pod", name: "x" }] }).reasons).toHaveLength(2)
  })

  it("names every problem when a field has the wrong shape: shape problems and the rules the other fields break", () => {
    expect(
      refused({ namespace: "Bad_NS", mode: "kueue", runtimes: [{ kind: "Nope", name: "" }], timeouts: { call: "-1s" }, extra: 1 }).reasons
    ).toEqual([
      "config extra: unknown field",
      expect.stringMatching(/^config runtimes\[0\]\.kind: /),
      'config namespace: "Bad_NS" is not a DNS-1123 label',
      "config kueue: required in kueue mode",
      expect.stringMatching(/^config timeouts\.call: /)
    ])
  })

  const sloppyConfig = fc.record({
    namespace: fc.constantFrom("ml", "Bad_NS", ""),
    mode: fc.constantFrom("plain", "kueue"),
    runtimes: fc.constantFrom([{ kind: "TrainingRuntime", name: "rt" }], [{ kind: "TrainingRuntime", name: "Bad Name" }], []),
    timeouts: fc.record({ call: fc.constantFrom(1, "0s", "-1s", "5s"), callBound: fc.constantFrom(2, "1s") })
  })
  test.prop([sloppyConfig, fc.constantFrom("extra", "namespaces", "mod")])(
    "an unknown field adds its own reason and hides none of the others",
    (input, extra) => {
      const without = decodeConfig(input)
      const withExtra = refused({ ...input, [extra]: true }).reasons
      const others = Result.isFailure(without) ? without.failure.reasons : []
      expect([...withExtra].sort()).toEqual([...others, `config ${extra}: unknown field`].sort())
    }
  )

  test.prop([fc.anything()])("never throws; anything else is ErrInvalid", (input) => {
    const r = decodeConfig(input)
    if (Result.isFailure(r)) expect(r.failure.error).toBe("ErrInvalid")
  })
})
