import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { isRfc1035Label } from "@dispatch/kube"
import { renderStart, type KubeObject, type Manifests, type Refusal, type StartRequest } from "../src/index.ts"
import { configArb, exampleRequest, plainConfig, requestArb, runtimeOf, RUNTIME } from "./Generators.ts"

const ok = (r: Result.Result<Manifests, Refusal>): Manifests => {
  if (Result.isFailure(r)) throw new Error(`refused: ${JSON.stringify(r.failure)}`)
  return r.success
}
const refused = (r: Result.Result<Manifests, Refusal>): Refusal => {
  if (Result.isSuccess(r)) throw new Error("rendered, expected a refusal")
  return r.failure
}
const trainer = (m: Manifests): Record<string, unknown> => (m.trainJob["spec"] as Record<string, KubeObject>)["trainer"] as Record<string, unknown>
const envNames = (m: Manifests): Array<string> => (trainer(m)["env"] as Array<{ name: string }>).map((e) => e.name)
const withSpec = (request: StartRequest, spec: Partial<StartRequest["spec"]>): StartRequest => ({ ...request, spec: { ...request.spec, ...spec } })
const envOfSize = (n: number): Record<string, string> => Object.fromEntries(Array.from({ length: n }, (_, i) => [`E${i}`, `${i}`]))

describe("renderStart", () => {
  test.prop([requestArb(), configArb, fc.boolean()])("is total and deterministic: the same input renders byte-identical output", (request, config, torch) => {
    const runtime = runtimeOf({ torch })
    const spec = torch ? request.spec : { ...request.spec, procsPerNode: 0 }
    const first = ok(renderStart({ ...request, spec }, config, runtime))
    const again = ok(renderStart(structuredClone({ ...request, spec }), structuredClone(config), structuredClone(runtime)))
    expect(again).toEqual(first)
    expect(JSON.stringify(again)).toBe(JSON.stringify(first))
  })

  test.prop([requestArb(), configArb])("names both objects with an RFC 1035 label of at most 37 characters", (request, config) => {
    const m = ok(renderStart(request, config, runtimeOf()))
    expect(m.name.length).toBeLessThanOrEqual(37)
    expect(isRfc1035Label(m.name)).toBe(true)
    expect((m.trainJob["metadata"] as KubeObject)["name"]).toBe(m.name)
    expect((m.runtimeCopy["metadata"] as KubeObject)["name"]).toBe(m.name)
    expect((m.trainJob["spec"] as KubeObject)["runtimeRef"]).toEqual({ apiGroup: "trainer.kubeflow.org", kind: "TrainingRuntime", name: m.name })
  })

  test.prop([requestArb({ maxEnv: 40 })])("env law: the job's keys sorted, then dispatch's variables in their fixed order", (request) => {
    const names = envNames(ok(renderStart(request, plainConfig, runtimeOf())))
    const own = Object.keys(request.spec.env)
    const sorted = [...own].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    const dispatch = ["DISPATCH_JOB_ID", "DISPATCH_GENERATION", "DISPATCH_SUBMISSION", "DISPATCH_K8S_EPOCH_PREFIX", "DISPATCH_K8S_TRAINJOB", "DISPATCH_K8S_NAMESPACE"]
    const withWorkDir = request.spec.workDir !== undefined && request.spec.workDir !== ""
    expect(names).toEqual([...sorted, ...dispatch, ...(withWorkDir ? ["DISPATCH_K8S_WORKDIR"] : [])])
  })

  test.prop([requestArb()])("DISPATCH_K8S_EPOCH_PREFIX is G x 10^6 + N and the command keeps the job's items after the prologue", (request) => {
    const t = trainer(ok(renderStart(request, plainConfig, runtimeOf())))
    const env = t["env"] as Array<{ name: string; value: string }>
    expect(env.find((e) => e.name === "DISPATCH_K8S_EPOCH_PREFIX")?.value).toBe(String(request.generation * 1_000_000 + request.submission))
    const command = t["command"] as Array<string>
    expect(command.slice(0, 2)).toEqual(["/bin/sh", "-c"])
    expect(command[3]).toBe("dispatch-prologue")
    expect(command.slice(4)).toEqual(request.spec.command)
  })

  it.each([
    [124, true],
    [125, false]
  ])("accepts exactly up to 124 command items: %i", (n, accepted) => {
    const r = renderStart(withSpec(exampleRequest, { command: Array.from({ length: n }, (_, i) => `a${i}`) }), plainConfig, runtimeOf())
    expect(Result.isSuccess(r)).toBe(accepted)
    if (!accepted) expect(refused(r)).toEqual({ error: "ErrInvalid", reasons: [expect.stringMatching(/^spec\.command: 125 items, more than 124/)] })
    else expect((trainer(ok(r))["command"] as Array<string>).length).toBe(128)
  })

  test.prop([fc.string({ maxLength: 12 }).filter((s) => !s.includes("\u0000")), fc.array(fc.constantFrom("x", "-y"), { maxLength: 3 })])(
    "refuses a command whose program begins with '-' (a shell's exec may take it for an option), naming spec.command[0]; later items may",
    (rest, args) => {
      const r = renderStart(withSpec(exampleRequest, { command: [`-${rest}`, ...args] }), plainConfig, runtimeOf())
      expect(refused(r)).toEqual({ error: "ErrInvalid", reasons: [expect.stringMatching(/^spec\.command\[0\]: begins with '-'/)] })
      expect(Result.isSuccess(renderStart(withSpec(exampleRequest, { command: ["python", ...args] }), plainConfig, runtimeOf()))).toBe(true)
    }
  )

  it.each([
    [121, false, true],
    [122, false, true],
    [123, false, false],
    [120, true, true],
    [121, true, true],
    [122, true, false],
    [123, true, false]
  ])("env limit: %i entries with workDir=%s accepted=%s", (n, workDir, accepted) => {
    const spec = { env: envOfSize(n), ...(workDir ? { workDir: "/w" } : {}) }
    const r = renderStart(withSpec(exampleRequest, spec), plainConfig, runtimeOf())
    expect(Result.isSuccess(r)).toBe(accepted)
    if (accepted) expect(envNames(ok(r)).length).toBeLessThanOrEqual(128)
    else expect(refused(r).reasons).toEqual([expect.stringMatching(new RegExp(`^spec\\.env: ${n} entries, more than ${workDir ? 121 : 122}`))])
  })

  it("sets suspend in plain mode and the queue label and start gate in kueue mode", () => {
    const plain = ok(renderStart(exampleRequest, plainConfig, runtimeOf()))
    expect((plain.trainJob["spec"] as KubeObject)["suspend"]).toBe(true)
    const kueueConfig = { ...plainConfig, mode: "kueue" as const, kueue: { queue: "q1", admissionCheck: "ac" } }
    const kueue = ok(renderStart(exampleRequest, kueueConfig, runtimeOf()))
    const meta = kueue.trainJob["metadata"] as Record<string, Record<string, string>>
    expect(Object.hasOwn(kueue.trainJob["spec"] as object, "suspend")).toBe(false)
    expect(meta["labels"]!["kueue.x-k8s.io/queue-name"]).toBe("q1")
    expect(meta["annotations"]!["kueue.x-k8s.io/admission-gated-by"]).toBe("dispatch.phpboyscout.uk/start")
  })

  it("maps GPUs, procs (torch only) and the time limit, rounded up", () => {
    const request = withSpec(exampleRequest, { gpusPerNode: 2, procsPerNode: 4, timeLimit: "1.2s" })
    const torch = ok(renderStart(request, { ...plainConfig, gpuResource: "amd.com/gpu" }, runtimeOf()))
    expect(trainer(torch)["resourcesPerNode"]).toEqual({ limits: { "amd.com/gpu": "2" } })
    expect(trainer(torch)["numProcPerNode"]).toBe(4)
    expect((torch.trainJob["spec"] as KubeObject)["activeDeadlineSeconds"]).toBe(2)
    const none = ok(renderStart(withSpec(exampleRequest, { gpusPerNode: 0, procsPerNode: 0, timeLimit: 0 }), plainConfig, runtimeOf({ torch: false })))
    expect(Object.keys(trainer(none))).toEqual(["image", "command", "env", "numNodes"])
    expect(Object.hasOwn(none.trainJob["spec"] as object, "activeDeadlineSeconds")).toBe(false)
  })

  it("copies the source runtime's spec verbatim, not by reference", () => {
    const runtime = runtimeOf()
    const m = ok(renderStart(exampleRequest, plainConfig, runtime))
    expect(m.runtimeCopy["spec"]).toEqual(runtime["spec"])
    expect(m.runtimeCopy["spec"]).not.toBe(runtime["spec"])
    expect((m.runtimeCopy["metadata"] as KubeObject)["namespace"]).toBe("ml-team")
  })

  it("targets only the runtime's trainer step with dispatch's one patch", () => {
    const m = ok(renderStart(exampleRequest, plainConfig, runtimeOf({ step: "trainer-x" })))
    const patches = (m.trainJob["spec"] as KubeObject)["runtimePatches"] as Array<Record<string, unknown>>
    expect(patches).toHaveLength(1)
    expect(patches[0]!["manager"]).toBe("dispatch.phpboyscout.uk/dispatch")
    expect(JSON.stringify(patches[0])).toContain('"name":"trainer-x"')
  })
})

describe("renderStart refusal order", () => {
  const bad = withSpec({ ...exampleRequest, job: "nope" }, {})
  it("refuses a missing RuntimeRef with ErrInvalid before reading any runtime", () => {
    const { "kubeflow/RuntimeRef": _, ...extensions } = bad.spec.extensions
    expect(refused(renderStart(withSpec(bad, { extensions }), plainConfig, undefined))).toEqual({
      error: "ErrInvalid",
      reasons: ['spec.extensions["kubeflow/RuntimeRef"]: required, naming the runtime to copy']
    })
  })
  it("refuses a malformed RuntimeRef with ErrInvalid", () => {
    const extensions = { ...bad.spec.extensions, "kubeflow/RuntimeRef": { kind: "Pod", name: "x" } }
    expect(refused(renderStart(withSpec(bad, { extensions }), plainConfig, runtimeOf()))).toEqual({
      error: "ErrInvalid",
      reasons: ['spec.extensions["kubeflow/RuntimeRef"].kind: Expected "TrainingRuntime" | "ClusterTrainingRuntime", got "Pod"']
    })
  })
  it("refuses the runtime (ErrUnsupported) before the tables (ErrInvalid)", () => {
    const r = refused(renderStart(bad, plainConfig, undefined))
    expect(r).toEqual({ error: "ErrUnsupported", reasons: [`runtime TrainingRuntime/${RUNTIME.name}: does not exist`] })
    expect(refused(renderStart(bad, plainConfig, runtimeOf())).error).toBe("ErrInvalid")
  })
  it("reports unsupported extensions with the seed's message, after every ErrInvalid reason when both arise", () => {
    const extensions = { ...exampleRequest.spec.extensions, "acme/Thing": {}, "acme/Other": 1 }
    expect(refused(renderStart(withSpec(exampleRequest, { extensions }), plainConfig, runtimeOf()))).toEqual({
      error: "ErrUnsupported",
      reasons: ["extension acme/Other is not supported on Kubeflow", "extension acme/Thing is not supported on Kubeflow"]
    })
    expect(refused(renderStart(withSpec({ ...exampleRequest, attempt: -1 }, { extensions }), plainConfig, runtimeOf()))).toEqual({
      error: "ErrInvalid",
      reasons: ["attempt: must not be negative, got -1", "extension acme/Other is not supported on Kubeflow", "extension acme/Thing is not supported on Kubeflow"]
    })
  })
})

// Each fault breaks one field and adds exactly one reason; the command faults exclude each other.
type Fault = { readonly invalid: boolean; readonly apply: (r: StartRequest) => StartRequest }
const spec = (f: (s: StartRequest["spec"]) => Partial<StartRequest["spec"]>): Fault["apply"] => (r) => withSpec(r, f(r.spec))
const FAULTS: ReadonlyArray<Fault> = [
  { invalid: true, apply: (r) => ({ ...r, job: r.job.toLowerCase() + "!" }) },
  { invalid: true, apply: (r) => ({ ...r, generation: 18_000_001 }) },
  { invalid: true, apply: (r) => ({ ...r, submission: 0 }) },
  { invalid: true, apply: (r) => ({ ...r, attempt: -3 }) },
  { invalid: true, apply: spec((s) => ({ env: { ...s.env, ZZ_NUL: "a\u0000b" } })) },
  { invalid: true, apply: spec((s) => ({ env: { ...s.env, DISPATCH_MINE: "x" } })) },
  { invalid: true, apply: spec((s) => ({ env: { ...s.env, "9BAD-KEY": "x" } })) },
  { invalid: true, apply: spec(() => ({ nodes: 0 })) },
  { invalid: true, apply: spec(() => ({ gpusPerNode: -1 })) },
  { invalid: true, apply: spec(() => ({ procsPerNode: -2 })) },
  { invalid: true, apply: spec(() => ({ timeLimit: "-1h" })) },
  { invalid: true, apply: spec(() => ({ checkpoint: "relative/path" })) },
  { invalid: true, apply: spec(() => ({ workDir: "/w\u0000" })) },
  { invalid: true, apply: spec((s) => ({ extensions: { ...s.extensions, "dispatch/Image": { ref: "" } } })) },
  { invalid: false, apply: spec((s) => ({ extensions: { ...s.extensions, "vendor/Fancy": {} } })) }
]
const COMMAND_FAULTS: ReadonlyArray<Fault> = [
  { invalid: true, apply: spec(() => ({ command: [] })) },
  { invalid: true, apply: spec(() => ({ command: Array.from({ length: 125 }, () => "x") })) },
  { invalid: true, apply: spec((s) => ({ command: [...s.command, "nul\u0000"] })) }
]

describe("renderStart faults", () => {
  test.prop([
    requestArb({ withWorkDir: false, maxEnv: 10 }).map((r) => withSpec(r, { command: r.spec.command.slice(0, 100) })),
    fc.subarray([...FAULTS]),
    fc.option(fc.constantFrom(...COMMAND_FAULTS), { nil: undefined })
  ])("a valid request with k independent faults reports exactly k reasons", (request, faults, commandFault) => {
    const all = commandFault === undefined ? faults : [...faults, commandFault]
    const faulty = all.reduce((r, f) => f.apply(r), request)
    const r = renderStart(faulty, plainConfig, runtimeOf())
    if (all.length === 0) return void expect(Result.isSuccess(r)).toBe(true)
    const refusal = refused(r)
    expect(refusal.reasons).toHaveLength(all.length)
    expect(refusal.error).toBe(all.some((f) => f.invalid) ? "ErrInvalid" : "ErrUnsupported")
  })
})
