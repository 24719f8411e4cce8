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
    expect(refused({ namespace: "ml", mode: "plain", runtimes: [] })).toEqual({ error: "ErrInvalid", reasons: ["config runtimes: must list at least one runtime"] })
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

  it("checks the rules only on fields of the right shape: a nested unknown field makes its field the wrong shape", () => {
    expect(refused({ namespace: 1, mode: "plain", runtimes, timeouts: { call: "0s", extra: 1 } }).reasons).toEqual([
      "config namespace: Expected string, got 1",
      "config timeouts.extra: unknown field"
    ])
  })

  it("names the config itself when it is not an object", () => {
    expect(refused("plain").reasons).toEqual(['config: Expected object, got "plain"'])
    expect(refused(null).reasons).toEqual(["config: Expected object, got null"])
    expect(refused(undefined).reasons).toEqual(["config: Expected object, got nothing"])
  })

  it("checks a probe runtime against the list only when the list decodes", () => {
    const probeRuntime = { kind: "TrainingRuntime", name: "torch-a" }
    expect(refused({ namespace: "ml", mode: "plain", probeRuntime }).reasons).toEqual(["config runtimes: required"])
    expect(refused({ namespace: "ml", mode: "plain", probeRuntime, runtimes: "torch-a" }).reasons).toEqual([
      expect.stringMatching(/^config runtimes: Expected array, got "torch-a"/)
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

  const base = { namespace: "ml", mode: "plain", runtimes }
  it.each([
    [{ workload: "24h" }, true],
    [{ call: 86_400.001 }, false],
    [{ workload: "24h0m0.001s" }, false],
    [{ callBound: "24h", call: "24h" }, true],
    [{ call: "1ms" }, true],
    [{ call: "0s" }, false],
    [{ call: -1 }, false]
  ])("timeouts %j accepted=%s (above zero, at most 24h)", (timeouts, accepted) => {
    const r = decodeConfig({ ...base, timeouts })
    expect(Result.isSuccess(r)).toBe(accepted)
  })

  it("names each timeout problem: not a duration, zero, over a day", () => {
    expect(refused({ ...base, timeouts: { call: "soon", workload: "25h", callBound: "0s" } }).reasons).toEqual([
      'config timeouts.call: "soon" is not a duration',
      'config timeouts.workload: must be at most 24h, got "25h"',
      'config timeouts.callBound: must be above zero, got "0s"'
    ])
  })

  it("a callBound equal to call is enough; one millisecond less is not", () => {
    expect(decoded({ ...base, timeouts: { call: "10s", callBound: "10s" } }).timeouts).toEqual({ callMs: 10_000, workloadMs: 120_000, callBoundMs: 10_000 })
    expect(refused({ ...base, timeouts: { call: "10s", callBound: "9.999s" } }).reasons).toEqual(["config timeouts.callBound: must be at least timeouts.call (10000 ms), got 9999 ms"])
  })

  it("takes a label domain whose start gate fits Kueue's 63 characters, and refuses one character more", () => {
    const fits = `${"a".repeat(53)}.org` // 57 characters: "<domain>/start" is 63
    expect(decoded({ ...base, labelDomain: fits }).labelDomain).toBe(fits)
    expect(refused({ ...base, labelDomain: `a${fits}` }).reasons).toEqual([`config labelDomain: "a${fits}" is too long: a${fits}/start must fit in 63 characters`])
    expect(refused({ ...base, labelDomain: "Not_A_Domain" }).reasons).toEqual(['config labelDomain: "Not_A_Domain" is not a DNS-1123 subdomain'])
  })

  it.each([
    ["", "config kueue.queue: \"\" is not a LocalQueue name usable as a label value"],
    ["Team-Q", 'config kueue.queue: "Team-Q" is not a LocalQueue name usable as a label value'],
    ["q".repeat(64), `config kueue.queue: "${"q".repeat(64)}" is not a LocalQueue name usable as a label value`],
    ["a..b", 'config kueue.queue: "a..b" is not a LocalQueue name usable as a label value']
  ])("refuses kueue.queue %j", (queue, reason) => {
    expect(refused({ ...base, mode: "kueue", kueue: { queue, admissionCheck: "ac" } }).reasons).toEqual([reason])
  })

  it("accepts a 63-character queue and refuses a malformed admission check", () => {
    expect(decoded({ ...base, mode: "kueue", kueue: { queue: "q".repeat(63), admissionCheck: "ac" } }).kueue?.queue).toBe("q".repeat(63))
    expect(refused({ ...base, mode: "kueue", kueue: { queue: "q", admissionCheck: "Bad Check" } }).reasons).toEqual(['config kueue.admissionCheck: "Bad Check" is not a DNS-1123 subdomain'])
  })

  it("a plain config may carry kueue settings, which are kept", () => {
    expect(decoded({ ...base, kueue: { queue: "q", admissionCheck: "ac" } }).kueue).toEqual({ queue: "q", admissionCheck: "ac" })
  })

  it("returns fresh runtime references, not the input's objects, without extra fields", () => {
    const input = { ...base, runtimes: runtimes.map((r) => ({ ...r })) }
    const c = decoded(input)
    expect(c.runtimes[0]).not.toBe(input.runtimes[0])
    expect(c.probeRuntime).toEqual(runtimes[0])
    expect(c.probeRuntime).not.toBe(input.runtimes[0])
  })
})
