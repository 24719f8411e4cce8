import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { checkRuntime, checkRuntimeListed, trainerStepOf } from "../src/index.ts"
import { mlPoliciesOf } from "../src/RuntimeRules.ts"
import { exampleRequest, plainConfig, RUNTIME, runtimeOf } from "./Generators.ts"

const spec = exampleRequest.spec
const check = (runtime: unknown, s = spec) => checkRuntime(plainConfig, RUNTIME, runtime, s)
const prefix = `runtime TrainingRuntime/${RUNTIME.name}`
type Job = Record<string, unknown>
const withJobs = (...jobs: Array<Job>) => {
  const r = runtimeOf()
  ;(((r["spec"] as Job)["template"] as Job)["spec"] as Job)["replicatedJobs"] = jobs
  return r
}
const job = (name: string, options: { label?: string; container?: string; replicas?: number; parallelism?: number; env?: Array<Job> } = {}): Job => ({
  name,
  ...(options.replicas === undefined ? {} : { replicas: options.replicas }),
  template: {
    metadata: options.label === undefined ? {} : { labels: { "trainer.kubeflow.org/trainjob-ancestor-step": options.label } },
    spec: {
      ...(options.parallelism === undefined ? {} : { parallelism: options.parallelism }),
      template: { spec: { containers: [{ name: options.container ?? name, ...(options.env === undefined ? {} : { env: options.env }) }] } }
    }
  }
})

describe("checkRuntime", () => {
  it("accepts the example runtime", () => {
    expect(check(runtimeOf())).toBeUndefined()
  })
  it("refuses a runtime outside the configured list, and a missing one, in one refusal", () => {
    expect(checkRuntime(plainConfig, { kind: "ClusterTrainingRuntime", name: RUNTIME.name }, undefined, spec)).toEqual({
      error: "ErrUnsupported",
      reasons: [`runtime ClusterTrainingRuntime/${RUNTIME.name}: not one of the configured runtimes`, `runtime ClusterTrainingRuntime/${RUNTIME.name}: does not exist`]
    })
  })
  it("finds the trainer step by label, else by the name node", () => {
    expect(check(withJobs(job("init", { label: "dataset-initializer" }), job("worker", { label: "trainer", container: "node" })))).toBeUndefined()
    expect(check(withJobs(job("node")))).toBeUndefined()
    expect(check(withJobs(job("a", { label: "trainer", container: "node" }), job("b", { label: "trainer", container: "node" })))?.reasons).toEqual([
      `${prefix}: 2 replicated jobs ("a", "b") are labelled trainer.kubeflow.org/trainjob-ancestor-step: trainer; exactly one trainer step is needed`
    ])
    expect(check(withJobs(job("worker")))?.reasons).toEqual([
      `${prefix}: no replicated job is labelled trainer.kubeflow.org/trainjob-ancestor-step: trainer and none is named node`
    ])
    expect(check(withJobs(job("node", { container: "main" })))?.reasons).toEqual([`${prefix}: trainer step "node" has no container named node`])
    const withSidecar = job("node")
    ;((((withSidecar["template"] as Job)["spec"] as Job)["template"] as Job)["spec"] as Job)["containers"] = [{ name: "sidecar" }, { name: "node" }]
    expect(check(withJobs(withSidecar))).toBeUndefined()
  })

  // A 15-character job name leaves 2 digits: pod names are 37 + 9 + 15 + digits(job index) + digits(pod index).
  it("counts a job's pods at the edge of 63 characters from replicas, and the larger of parallelism and completions", () => {
    const trainer = job("t", { label: "trainer", container: "node" })
    const helper = (fields: Job) => {
      const j = job("h".repeat(15))
      const { replicas, ...spec } = fields
      if (replicas !== undefined) j["replicas"] = replicas
      Object.assign((j["template"] as Job)["spec"] as Job, spec)
      return j
    }
    const refused = (fields: Job) => check(withJobs(trainer, helper(fields))) !== undefined
    expect(refused({ replicas: 10, parallelism: 10, completions: 10 })).toBe(false)
    expect(refused({ replicas: 11 })).toBe(true)
    expect(refused({ parallelism: 11 })).toBe(true)
    expect(refused({ completions: 11 })).toBe(true)
    expect(refused({ parallelism: 1, completions: 11 })).toBe(true)
    expect(refused({ parallelism: 11, completions: 1 })).toBe(true)
    // What is not a whole number of at least one counts as one.
    for (const odd of ["100", 10.5, 0, -100, Number.MAX_SAFE_INTEGER + 2, null]) {
      expect(refused({ replicas: odd, parallelism: odd, completions: odd })).toBe(false)
    }
    expect(refused({ replicas: 100, parallelism: "100" })).toBe(true)
  })

  it("names a labelled trainer step without a name, a spec that is not JSON data, and a missing list of replicated jobs", () => {
    const nameless = job("x", { label: "trainer", container: "node" })
    delete nameless["name"]
    expect(check(withJobs(nameless))?.reasons).toEqual([`${prefix}: the trainer step has no name`])
    expect(check(withJobs({ ...nameless, name: 5 }))?.reasons).toEqual([`${prefix}: the trainer step has no name`])
    const notJson = runtimeOf()
    ;(notJson["spec"] as Job)["mlPolicy"] = { torch: {}, numNodes: Number.NaN }
    expect(check(notJson)).toEqual({ error: "ErrUnsupported", reasons: [`${prefix}: its spec is not plain JSON data`] })
    for (const template of [{}, { spec: {} }, { spec: { replicatedJobs: { node: {} } } }]) {
      expect(check({ ...runtimeOf(), spec: { template } })).toEqual({ error: "ErrUnsupported", reasons: [`${prefix}: has no spec.template.spec.replicatedJobs list`] })
    }
  })

  it("counts the job's nodes for the step named node too (Trainer scales it, e.g. MPI's workers beside a launcher)", () => {
    // A DeepSpeed-style runtime: the launcher is the labelled trainer step, the workers are `node`.
    const runtime = withJobs(job("node", { replicas: 100_000, container: "node" }), job("launcher", { label: "trainer", container: "node" }))
    expect(check(runtime, { ...spec, nodes: 1 })).toBeUndefined()
    // 37 + 4 ("node") + 5 (job index 99999) + 9 (pod index 999999999) + 9 > 63.
    const reasons = check(runtime, { ...spec, nodes: 1_000_000_000 })?.reasons ?? []
    expect(reasons.some((r) => r.startsWith(`${prefix}: replicated job "node"`))).toBe(true)
  })

  test.prop([fc.constantFrom(["torch", "PET_"], ["mpi", "OMPI_"], ["xgboost", "DMLC_"]), fc.stringMatching(/^[A-Z0-9_]{1,8}$/)])(
    "refuses env keys with the prefix the runtime's ML policy reserves (ErrUnsupported), and only for that policy",
    ([policy, reserved], suffix) => {
      const withPolicy = (name: string) => {
        const runtime = runtimeOf()
        ;(runtime["spec"] as Job)["mlPolicy"] = { numNodes: 1, [name]: {} }
        return runtime
      }
      const key = `${reserved}${suffix}`
      const env = { ...spec.env, [key]: "1" }
      expect(check(withPolicy(policy), { ...spec, env })).toEqual({
        error: "ErrUnsupported",
        reasons: [`${prefix}: spec.env[${JSON.stringify(key)}]: keys beginning ${reserved} are set by Trainer for mlPolicy.${policy} runtimes`]
      })
      expect(check(withPolicy("jax"), { ...spec, env })).toBeUndefined()
    }
  )

  // 37 (name) + 9 (separators and suffix) + job name + digits(job index) + digits(pod index) <= 63.
  test.prop([fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 200_000 }), fc.integer({ min: 1, max: 120 })])(
    "refuses exactly the replicated jobs whose pod names would pass 63 characters",
    (nameLength, nodes, replicas) => {
      const name = "n".repeat(nameLength)
      const trainer = job(name, { label: "trainer", container: "node" })
      const helper = job("h".repeat(nameLength), { replicas, parallelism: 3 })
      const refusal = check(withJobs(trainer, helper), { ...spec, nodes })
      const fits = (podIndex: number, jobIndex: number) => 37 + 9 + nameLength + String(jobIndex).length + String(podIndex).length <= 63
      const expected = [!fits(nodes - 1, 0), !fits(2, replicas - 1)].filter(Boolean).length
      expect(refusal?.reasons.length ?? 0).toBe(expected)
    }
  )
  it("matches the facts: with one node, node and launcher fit, dataset-initializer and model-initializer do not", () => {
    const r = check(withJobs(job("node", { label: "trainer" }), job("launcher"), job("dataset-initializer"), job("model-initializer")))
    expect(r?.reasons.map((s) => s.split(":")[1])).toEqual([' replicated job "dataset-initializer"', ' replicated job "model-initializer"'])
  })

  it("reads a policy set to null as not set, and a mlPolicy that is not an object as none", () => {
    const withPolicy = (mlPolicy: unknown) => {
      const runtime = runtimeOf()
      ;(runtime["spec"] as Job)["mlPolicy"] = mlPolicy
      return runtime
    }
    expect(check(withPolicy({ torch: null, mpi: {} }))).toBeUndefined()
    expect(mlPoliciesOf(withPolicy({ torch: null, mpi: {}, jax: undefined }))).toEqual(["mpi"])
    for (const none of [null, "torch", ["torch"]]) {
      expect(mlPoliciesOf(withPolicy(none))).toEqual([])
      expect(check(withPolicy(none), { ...spec, procsPerNode: 2 })?.reasons).toEqual([`${prefix}: spec.procsPerNode is 2, which needs mlPolicy.torch; this runtime would ignore it`])
    }
  })

  it("names each reserved env key in key order, and reserves nothing for a policy without a prefix", () => {
    const withPolicy = (name: string) => {
      const runtime = runtimeOf()
      ;(runtime["spec"] as Job)["mlPolicy"] = { numNodes: 1, [name]: {} }
      return runtime
    }
    expect(check(withPolicy("torch"), { ...spec, env: { PET_B: "1", PET_A: "1" } })?.reasons).toEqual([
      `${prefix}: spec.env["PET_A"]: keys beginning PET_ are set by Trainer for mlPolicy.torch runtimes`,
      `${prefix}: spec.env["PET_B"]: keys beginning PET_ are set by Trainer for mlPolicy.torch runtimes`
    ])
    expect(check(withPolicy("jax"), { ...spec, env: { undefined_X: "1", PET_A: "1" } })).toBeUndefined()
  })

  it("allows at most one mlPolicy and needs torch for procsPerNode", () => {
    const two = runtimeOf()
    ;(two["spec"] as Job)["mlPolicy"] = { torch: {}, mpi: {} }
    expect(check(two)?.reasons).toEqual([`${prefix}: mlPolicy sets 2 policies (torch, mpi); at most one is allowed`])
    expect(check(runtimeOf({ torch: false }), { ...spec, procsPerNode: 2 })?.reasons).toEqual([
      `${prefix}: spec.procsPerNode is 2, which needs mlPolicy.torch; this runtime would ignore it`
    ])
    expect(check(runtimeOf({ torch: false }), { ...spec, procsPerNode: 0 })).toBeUndefined()
  })

  it("refuses a trainer container that already defines DISPATCH_ variables, naming each", () => {
    const r = check(runtimeOf({ env: [{ name: "DISPATCH_JOB_ID", value: "x" }, { name: "OK", value: "" }, { name: 5 }, { value: "" }, { name: "DISPATCH_X", value: "" }] }))
    expect(r).toEqual({
      error: "ErrUnsupported",
      reasons: [
        `${prefix}: trainer container node already defines "DISPATCH_JOB_ID"; keys beginning DISPATCH_ are dispatch's`,
        `${prefix}: trainer container node already defines "DISPATCH_X"; keys beginning DISPATCH_ are dispatch's`
      ]
    })
  })

  it("refuses a runtime without a spec, or that is not an object", () => {
    for (const runtime of [{ metadata: {} }, { spec: "x" }, "runtime", null]) {
      expect(check(runtime)).toEqual({ error: "ErrUnsupported", reasons: [`${prefix}: has no spec`] })
    }
  })

  test.prop([fc.anything()])("never throws on a runtime of any shape", (runtime) => {
    const r = check(runtime)
    if (r !== undefined) expect(r.error).toBe("ErrUnsupported")
  })
  test.prop([fc.jsonValue()])("never throws on JSON placed anywhere in the runtime spec", (value) => {
    const r = runtimeOf()
    ;(r["spec"] as Job)["template"] = { spec: { replicatedJobs: [value, job("node", { label: "trainer" })] } }
    expect(() => check(r)).not.toThrow()
  })
})

describe("trainerStepOf", () => {
  it("finds no step, and says why, in a runtime without replicated jobs or with none that qualifies", () => {
    const none = "no replicated job is labelled trainer.kubeflow.org/trainjob-ancestor-step: trainer and none is named node"
    expect(trainerStepOf({})).toEqual({ problems: [none] })
    expect(trainerStepOf(withJobs(job("launcher")))).toEqual({ problems: [none] })
    expect(trainerStepOf(withJobs(job("node"))).step).toEqual(job("node"))
  })
})

describe("checkRuntimeListed", () => {
  it("accepts any runtime of the list, not only the first", () => {
    const second = { kind: "ClusterTrainingRuntime" as const, name: "second" }
    const config = { ...plainConfig, runtimes: [...plainConfig.runtimes, second] }
    expect(checkRuntimeListed(config, second)).toBeUndefined()
    expect(checkRuntimeListed(config, RUNTIME)).toBeUndefined()
  })

  const refArb = fc.oneof(
    fc.constantFrom(...plainConfig.runtimes),
    fc.record({ kind: fc.constantFrom("TrainingRuntime" as const, "ClusterTrainingRuntime" as const), name: fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/) })
  )
  const runtimeArb = fc.boolean().map((torch) => runtimeOf({ torch }))

  test.prop([refArb, fc.option(runtimeArb, { nil: undefined })])(
    "refuses exactly the runtimes outside the list, and checkRuntime refuses them with the same reason",
    (ref, runtime) => {
      const listed = plainConfig.runtimes.some((r) => r.kind === ref.kind && r.name === ref.name)
      const refused = checkRuntimeListed(plainConfig, ref)
      expect(refused === undefined).toBe(listed)
      if (refused === undefined) return
      expect(refused.error).toBe("ErrUnsupported")
      expect(checkRuntime(plainConfig, ref, runtime, spec)?.reasons).toEqual(expect.arrayContaining([...refused.reasons]))
    }
  )
})
