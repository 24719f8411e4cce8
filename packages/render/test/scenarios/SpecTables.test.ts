// One test per sentence of Start's request, spec and extension tables that a changed line of render
// must fail: each pins the exact field, boundary or message, not only that something was refused.
import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { admissionGatedBy } from "@dispatch/kube"
import { KUEUE_QUEUE_LABEL, MAX_REASONS, renderStart, type KubeObject, type Manifests, type Refusal, type StartRequest } from "../../src/index.ts"
import { configArb, exampleRequest, plainConfig, requestArb, runtimeOf, text } from "../Generators.ts"

const ok = (r: Result.Result<Manifests, Refusal>): Manifests => {
  if (Result.isFailure(r)) throw new Error(`refused: ${JSON.stringify(r.failure)}`)
  return r.success
}
const refusedWith = (r: Result.Result<Manifests, Refusal>): Refusal => {
  if (Result.isSuccess(r)) throw new Error("rendered, expected a refusal")
  return r.failure
}
const render = (request: StartRequest) => renderStart(request, plainConfig, runtimeOf())
const withSpec = (request: StartRequest, spec: Partial<StartRequest["spec"]>): StartRequest => ({ ...request, spec: { ...request.spec, ...spec } })
const trainerOf = (m: Manifests): Record<string, unknown> => (m.trainJob["spec"] as Record<string, KubeObject>)["trainer"] as Record<string, unknown>
const envOf = (m: Manifests): Array<{ name: string; value: string }> => trainerOf(m)["env"] as Array<{ name: string; value: string }>
const metadataOf = (o: KubeObject): Record<string, Record<string, string>> => o["metadata"] as Record<string, Record<string, string>>

describe("the request table", () => {
  it.each([
    [-1, "generation: must be 0 to 18000000, got -1"],
    [-18_000_000, "generation: must be 0 to 18000000, got -18000000"],
    [18_000_001, "generation: must be 0 to 18000000, got 18000001"]
  ])("refuses generation %i with ErrInvalid naming it", (generation, reason) => {
    expect(refusedWith(render({ ...exampleRequest, generation }))).toEqual({ error: "ErrInvalid", reasons: [reason] })
  })

  it.each([0, 18_000_000])("accepts generation %i, and DISPATCH_K8S_EPOCH_PREFIX and DISPATCH_GENERATION carry it", (generation) => {
    const env = envOf(ok(render({ ...exampleRequest, generation })))
    expect(env.find((e) => e.name === "DISPATCH_GENERATION")?.value).toBe(String(generation))
    expect(env.find((e) => e.name === "DISPATCH_K8S_EPOCH_PREFIX")?.value).toBe(String(generation * 1_000_000 + exampleRequest.submission))
  })

  it.each([
    [0, false],
    [1, true],
    [999_999, true],
    [1_000_000, false],
    [-1, false]
  ])("submission %i accepted=%s (1 to 999,999)", (submission, accepted) => {
    const r = render({ ...exampleRequest, submission })
    if (accepted) expect(ok(r).name).toBe(`dj-${exampleRequest.job.toLowerCase()}-s${submission}`)
    else expect(refusedWith(r)).toEqual({ error: "ErrInvalid", reasons: [`submission: must be 1 to 999999, got ${submission}`] })
  })

  it.each([
    [-1, false],
    [0, true]
  ])("attempt %i accepted=%s", (attempt, accepted) => {
    const r = render({ ...exampleRequest, attempt })
    if (accepted) expect(metadataOf(ok(r).trainJob)["annotations"]!["dispatch.phpboyscout.uk/attempt-token"]).toBe(`${attempt}.2.17`)
    else expect(refusedWith(r)).toEqual({ error: "ErrInvalid", reasons: [`attempt: must not be negative, got ${attempt}`] })
  })

  it("refuses a job that is not a JobID, quoting it", () => {
    expect(refusedWith(render({ ...exampleRequest, job: "not-a-ulid" }))).toEqual({
      error: "ErrInvalid",
      reasons: ['job: "not-a-ulid" is not a JobID (a ULID: 26 upper-case Crockford base32 characters)']
    })
  })

  test.prop([fc.anything()])("never refuses Native, and Native changes nothing in either object", (native) => {
    expect(ok(render({ ...exampleRequest, native }))).toEqual(ok(render(exampleRequest)))
  })
})

describe("the spec table", () => {
  test.prop([requestArb(), configArb])("Nodes becomes spec.trainer.numNodes", (request, config) => {
    expect(trainerOf(ok(renderStart(request, config, runtimeOf())))["numNodes"]).toBe(request.spec.nodes)
  })

  test.prop([
    requestArb(),
    configArb,
    fc.record(
      {
        name: text(),
        checkpoint: fc.constantFrom("/ckpt/run-1", "s3://bucket/prefix/key", "/", "s3://b"),
        recovery: fc.jsonValue(),
        shared: fc.constant(true)
      },
      { requiredKeys: [] }
    )
  ])("Name, Checkpoint, Recovery and dispatch/SharedCheckpoint change nothing in the TrainJob", (request, config, extra) => {
    const { name: _n, checkpoint: _c, recovery: _r, ...bare } = request.spec
    const { "dispatch/SharedCheckpoint": _s, ...extensions } = bare.extensions
    const plain: StartRequest = { ...request, spec: { ...bare, extensions } }
    const withExtras: StartRequest = {
      ...request,
      spec: {
        ...plain.spec,
        ...(extra.name === undefined ? {} : { name: extra.name }),
        ...(extra.checkpoint === undefined ? {} : { checkpoint: extra.checkpoint }),
        ...(extra.recovery === undefined ? {} : { recovery: extra.recovery }),
        extensions: { ...extensions, ...(extra.shared === undefined ? {} : { "dispatch/SharedCheckpoint": {} }) }
      }
    }
    const a = ok(renderStart(plain, config, runtimeOf()))
    const b = ok(renderStart(withExtras, config, runtimeOf()))
    expect(b.trainJob).toEqual(a.trainJob)
    expect(b.runtimeCopy).toEqual(a.runtimeCopy)
  })

  it.each(["relative/ckpt", "", "s3://", "s3:///key", "S3://bucket/key", "s3:/bucket/key", "xs3://bucket/key", "file:///ckpt", "gs://bucket/key", "/ckpt\u0000"])(
    "refuses checkpoint %j: neither an absolute path nor an s3:// URL with a bucket",
    (checkpoint) => {
      const r = refusedWith(render(withSpec(exampleRequest, { checkpoint })))
      expect(r.error).toBe("ErrInvalid")
      expect(r.reasons).toEqual([`spec.checkpoint: ${JSON.stringify(checkpoint)} is neither an absolute path nor an s3:// URL`])
    }
  )

  it.each(["/", "/ckpt", "s3://bucket/key", "s3://b"])("accepts checkpoint %j", (checkpoint) => {
    expect(Result.isSuccess(render(withSpec(exampleRequest, { checkpoint })))).toBe(true)
  })

  it("an empty WorkDir is unset: no DISPATCH_K8S_WORKDIR, and the job keeps 122 env entries", () => {
    const names = envOf(ok(render(withSpec(exampleRequest, { workDir: "" })))).map((e) => e.name)
    expect(names).not.toContain("DISPATCH_K8S_WORKDIR")
    expect(names).toEqual(envOf(ok(render(exampleRequest))).map((e) => e.name))
    const env = Object.fromEntries(Array.from({ length: 122 }, (_, i) => [`E${i}`, "v"]))
    expect(Result.isSuccess(render(withSpec(exampleRequest, { workDir: "", env })))).toBe(true)
  })

  it("a WorkDir becomes DISPATCH_K8S_WORKDIR, last, exactly as given", () => {
    const env = envOf(ok(render(withSpec(exampleRequest, { workDir: "rel dir/x" }))))
    expect(env.at(-1)).toEqual({ name: "DISPATCH_K8S_WORKDIR", value: "rel dir/x" })
  })

  it.each([
    ["gpusPerNode", -1, "spec.gpusPerNode: must not be negative, got -1"],
    ["procsPerNode", -1, "spec.procsPerNode: must not be negative, got -1"],
    ["nodes", 0, "spec.nodes: must be at least 1, got 0"],
    ["nodes", 2_147_483_648, "spec.nodes: 2147483648 does not fit Trainer's int32 numNodes"],
    ["procsPerNode", 2_147_483_648, "spec.procsPerNode: 2147483648 does not fit Trainer's int32 numProcPerNode"]
  ] as const)("refuses %s = %i naming it", (field, value, reason) => {
    expect(refusedWith(render(withSpec(exampleRequest, { [field]: value })))).toEqual({ error: "ErrInvalid", reasons: [reason] })
  })

  it.each([
    ["nodes", 2_147_483_647],
    ["procsPerNode", 2_147_483_647],
    ["gpusPerNode", 0],
    ["procsPerNode", 0]
  ] as const)("accepts %s = %i", (field, value) => {
    expect(Result.isSuccess(render(withSpec(exampleRequest, { [field]: value })))).toBe(true)
  })

  it("a time limit of zero or a negative one: zero sets no deadline, negative is refused naming it", () => {
    expect(Object.hasOwn(ok(render(withSpec(exampleRequest, { timeLimit: "0s" }))).trainJob["spec"] as object, "activeDeadlineSeconds")).toBe(false)
    expect(refusedWith(render(withSpec(exampleRequest, { timeLimit: -1 })))).toEqual({ error: "ErrInvalid", reasons: ["spec.timeLimit: must not be negative, got -1"] })
    expect(refusedWith(render(withSpec(exampleRequest, { timeLimit: "soon" })))).toEqual({
      error: "ErrInvalid",
      reasons: ['spec.timeLimit: "soon" is not a duration (seconds, or Go syntax such as "1h30m")']
    })
  })

  it("names the NUL's place: a command item, an env key, an env value, the workdir", () => {
    expect(refusedWith(render(withSpec(exampleRequest, { command: ["a", "b\u0000"] }))).reasons).toEqual(["spec.command[1]: contains a NUL character"])
    expect(refusedWith(render(withSpec(exampleRequest, { env: { "K\u0000": "v" } }))).reasons).toEqual(['spec.env["K\\u0000"]: the key contains a NUL character'])
    expect(refusedWith(render(withSpec(exampleRequest, { env: { K: "v\u0000" } }))).reasons).toEqual(['spec.env["K"]: the value contains a NUL character'])
    expect(refusedWith(render(withSpec(exampleRequest, { workDir: "\u0000" }))).reasons).toEqual(["spec.workDir: contains a NUL character"])
    expect(refusedWith(render(withSpec(exampleRequest, { command: [] }))).reasons).toEqual(["spec.command: no command"])
  })

  it("refuses a malformed env key and a DISPATCH_ one, each with its own reason", () => {
    expect(refusedWith(render(withSpec(exampleRequest, { env: { "1X": "v" } }))).reasons).toEqual(['spec.env["1X"]: the key is not a C identifier ([A-Za-z_][A-Za-z0-9_]*)'])
    expect(refusedWith(render(withSpec(exampleRequest, { env: { DISPATCH_X: "v" } }))).reasons).toEqual(['spec.env["DISPATCH_X"]: keys beginning DISPATCH_ are reserved for dispatch'])
    expect(Result.isSuccess(render(withSpec(exampleRequest, { env: { _dispatch_x: "v", DISPATCHX: "v" } })))).toBe(true)
  })

  it("a key must be a C identifier throughout, not only at its start", () => {
    expect(refusedWith(render(withSpec(exampleRequest, { env: { "A-B": "v" } }))).reasons).toEqual(['spec.env["A-B"]: the key is not a C identifier ([A-Za-z_][A-Za-z0-9_]*)'])
    expect(ok(render(withSpec(exampleRequest, { env: { a_9Z: "v" } }))).name).toMatch(/^dj-/)
  })

  it("accepts one node, the least", () => {
    expect(trainerOf(ok(render(withSpec(exampleRequest, { nodes: 1 }))))["numNodes"]).toBe(1)
  })

  it("states each count limit exactly: what Trainer allows and what dispatch takes", () => {
    const env = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`E${i}`, "v"]))
    expect(refusedWith(render(withSpec(exampleRequest, { env: env(123) }))).reasons).toEqual(["spec.env: 123 entries, more than 122 (Trainer allows 128, dispatch adds 6)"])
    expect(refusedWith(render(withSpec(exampleRequest, { env: env(122), workDir: "/w" }))).reasons).toEqual([
      "spec.env: 122 entries, more than 121 with workDir (Trainer allows 128, dispatch adds 7)"
    ])
    expect(refusedWith(render(withSpec(exampleRequest, { command: Array.from({ length: 125 }, () => "x") }))).reasons).toEqual([
      "spec.command: 125 items, more than 124 (Trainer allows 128, the prologue takes 4)"
    ])
  })

  it("refuses a command item over Trainer's 1 MiB, naming it; exactly 1 MiB is accepted", () => {
    const limit = 1_048_576
    expect(refusedWith(render(withSpec(exampleRequest, { command: ["python", "x".repeat(limit + 1)] }))).reasons).toEqual([`spec.command[1]: ${limit + 1} characters, more than Trainer's ${limit}`])
    expect(Result.isSuccess(render(withSpec(exampleRequest, { command: ["python", "x".repeat(limit)] })))).toBe(true)
  })
})

describe("the extension table", () => {
  const withImage = (ref: string) => withSpec(exampleRequest, { extensions: { ...exampleRequest.spec.extensions, "dispatch/Image": { ref } } })

  it("accepts an image of exactly 500 characters and refuses 501, naming the limit", () => {
    const at = "r/" + "i".repeat(498)
    expect(trainerOf(ok(render(withImage(at))))["image"]).toBe(at)
    const over = at + "x"
    expect(refusedWith(render(withImage(over)))).toEqual({
      error: "ErrInvalid",
      reasons: [`spec.extensions["dispatch/Image"].ref: ${JSON.stringify(over.slice(0, 64))}... (501 characters) is longer than Trainer's 500 characters`]
    })
  })

  it("refuses a missing image and an empty Ref with ErrInvalid, each with its reason", () => {
    const { "dispatch/Image": _, ...extensions } = exampleRequest.spec.extensions
    expect(refusedWith(render(withSpec(exampleRequest, { extensions })))).toEqual({
      error: "ErrInvalid",
      reasons: ['spec.extensions["dispatch/Image"]: required, naming the container image']
    })
    expect(refusedWith(render(withImage("")))).toEqual({ error: "ErrInvalid", reasons: ['spec.extensions["dispatch/Image"].ref: must not be empty'] })
  })

  it("refuses a RuntimeRef whose name is not a DNS-1123 subdomain, before reading any runtime", () => {
    const extensions = { ...exampleRequest.spec.extensions, "kubeflow/RuntimeRef": { kind: "TrainingRuntime", name: "Bad_Name" } }
    expect(refusedWith(renderStart(withSpec(exampleRequest, { extensions }), plainConfig, undefined))).toEqual({
      error: "ErrInvalid",
      reasons: ['spec.extensions["kubeflow/RuntimeRef"].name: "Bad_Name" is not a DNS-1123 subdomain']
    })
  })

  it("refuses an image extension of the wrong shape with ErrInvalid, naming it", () => {
    const r = refusedWith(render(withSpec(exampleRequest, { extensions: { ...exampleRequest.spec.extensions, "dispatch/Image": "registry/image:1" } })))
    expect(r.error).toBe("ErrInvalid")
    expect(r.reasons).toHaveLength(1)
    expect(r.reasons[0]).toMatch(/^spec\.extensions\["dispatch\/Image"\]/)
  })

  it("quotes an unknown extension name of up to 128 characters whole", () => {
    const key = `acme/${"k".repeat(123)}`
    expect(refusedWith(render(withSpec(exampleRequest, { extensions: { ...exampleRequest.spec.extensions, [key]: {} } }))).reasons).toEqual([`extension ${key} is not supported on Kubeflow`])
  })

  it("shortens a huge unknown extension name in its reason", () => {
    const key = `acme/${"k".repeat(200)}`
    expect(refusedWith(render(withSpec(exampleRequest, { extensions: { ...exampleRequest.spec.extensions, [key]: {} } })))).toEqual({
      error: "ErrUnsupported",
      reasons: [`extension ${key.slice(0, 128)}... is not supported on Kubeflow`]
    })
  })
})

describe("the TrainJob's labels and annotations", () => {
  it("in plain mode carries no Kueue gate annotation nor queue label: exactly dispatch's own keys", () => {
    const m = ok(render(exampleRequest))
    const { labels, annotations } = metadataOf(m.trainJob)
    expect(Object.keys(annotations!).sort()).toEqual(["dispatch.phpboyscout.uk/attempt-token", "dispatch.phpboyscout.uk/comment"])
    expect(Object.keys(labels!).sort()).toEqual(["dispatch.phpboyscout.uk/generation", "dispatch.phpboyscout.uk/job-id", "dispatch.phpboyscout.uk/submission"])
    expect(annotations).not.toHaveProperty([admissionGatedBy])
    expect(labels).not.toHaveProperty([KUEUE_QUEUE_LABEL])
  })

  it("a plain-mode config that carries Kueue settings still renders no queue label and no gate", () => {
    const config = { ...plainConfig, kueue: { queue: "team-q", admissionCheck: "ac" } }
    const { labels, annotations } = metadataOf(ok(renderStart(exampleRequest, config, runtimeOf())).trainJob)
    expect(labels).not.toHaveProperty([KUEUE_QUEUE_LABEL])
    expect(annotations).not.toHaveProperty([admissionGatedBy])
    expect((ok(renderStart(exampleRequest, config, runtimeOf())).trainJob["spec"] as KubeObject)["suspend"]).toBe(true)
  })

  it("the copy of a runtime without labels carries only dispatch's identity labels", () => {
    const runtime = runtimeOf()
    delete (runtime["metadata"] as Record<string, unknown>)["labels"]
    expect(metadataOf(ok(renderStart(exampleRequest, plainConfig, runtime)).runtimeCopy)["labels"]).toEqual({
      "dispatch.phpboyscout.uk/job-id": exampleRequest.job,
      "dispatch.phpboyscout.uk/submission": "17",
      "dispatch.phpboyscout.uk/generation": "2"
    })
  })

  it("the copy keeps only Trainer's labels whose values are label values: not a list, nor a number", () => {
    const runtime = runtimeOf()
    ;(runtime["metadata"] as Record<string, unknown>)["labels"] = {
      "trainer.kubeflow.org/framework": ["torch"],
      "trainer.kubeflow.org/size": 3,
      "trainer.kubeflow.org/kept": "yes"
    }
    const labels = metadataOf(ok(renderStart(exampleRequest, plainConfig, runtime)).runtimeCopy)["labels"] as Record<string, unknown>
    expect(Object.keys(labels).filter((key) => key.startsWith("trainer.kubeflow.org/"))).toEqual(["trainer.kubeflow.org/kept"])
  })

  it("in Kueue mode adds the queue label and the gate, under the config's label domain", () => {
    const config = { ...plainConfig, mode: "kueue" as const, kueue: { queue: "team-q", admissionCheck: "ac" }, labelDomain: "example.org" }
    const { labels, annotations } = metadataOf(ok(renderStart(exampleRequest, config, runtimeOf())).trainJob)
    expect(annotations![admissionGatedBy]).toBe("example.org/start")
    expect(labels![KUEUE_QUEUE_LABEL]).toBe("team-q")
    expect(annotations!["example.org/comment"]).toBe(`dispatch job ${exampleRequest.job} g=2 s=17 a=1`)
  })
})

describe("the cap on reasons", () => {
  const manyBadKeys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`${i}bad`, "v"]))

  it(`lists exactly ${MAX_REASONS} reasons in full`, () => {
    const r = refusedWith(render(withSpec(exampleRequest, { env: manyBadKeys(MAX_REASONS) })))
    expect(r.reasons).toHaveLength(MAX_REASONS)
    expect(r.reasons.every((reason) => reason.startsWith("spec.env["))).toBe(true)
  })

  it(`summarises from the ${MAX_REASONS + 1}st: the first ${MAX_REASONS}, then how many more`, () => {
    const r = refusedWith(render(withSpec(exampleRequest, { env: manyBadKeys(MAX_REASONS + 1) })))
    expect(r.reasons).toHaveLength(MAX_REASONS + 1)
    expect(r.reasons.at(-1)).toBe("... and 1 more")
  })

  it("caps an ErrUnsupported refusal too", () => {
    const extensions = { ...exampleRequest.spec.extensions, ...Object.fromEntries(Array.from({ length: MAX_REASONS + 5 }, (_, i) => [`acme/x${String(i).padStart(3, "0")}`, {}])) }
    const r = refusedWith(render(withSpec(exampleRequest, { extensions })))
    expect(r.error).toBe("ErrUnsupported")
    expect(r.reasons).toHaveLength(MAX_REASONS + 1)
    expect(r.reasons.at(-1)).toBe("... and 5 more")
  })
})
