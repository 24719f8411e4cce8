// Generators shared by the render tests: valid requests, configs and runtimes, so each test can start
// from something that renders and change one thing.
import fc from "fast-check"
import type { BackendConfig, StartRequest } from "../src/index.ts"

/** A request field value with no NUL. */
export const text = (maxLength = 40): fc.Arbitrary<string> => fc.string({ maxLength, unit: "binary" }).map((s) => s.replaceAll("\u0000", "?"))

/** A C identifier outside the DISPATCH_ prefix and the ML policies' reserved prefixes (PET_, OMPI_, DMLC_). */
export const envKey: fc.Arbitrary<string> = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,20}$/).filter((k) => !k.startsWith("DISPATCH_") && !/^(PET_|OMPI_|DMLC_)/.test(k))

/** A valid JobSpec env of at most `max` entries. */
export const envOf = (max: number): fc.Arbitrary<Record<string, string>> => fc.dictionary(envKey, text(), { maxKeys: max })

/** A duration the wire accepts and that is not negative. */
export const timeLimit: fc.Arbitrary<number | string> = fc.oneof(
  fc.double({ min: 0, max: 1e6, noNaN: true }),
  fc.tuple(fc.nat(99), fc.constantFrom("h", "m", "s", "ms"), fc.nat(999)).map(([a, unit, b]) => `${a}${unit}${b}ns`)
)

/** The runtime reference every generated request names. */
export const RUNTIME = { kind: "TrainingRuntime", name: "dispatch-torch" } as const

/** A runtime like examples/runtime.yaml, torch or not. */
export const runtimeOf = (options: { torch?: boolean; step?: string; env?: ReadonlyArray<unknown> } = {}): Record<string, unknown> => ({
  apiVersion: "trainer.kubeflow.org/v1alpha1",
  kind: "TrainingRuntime",
  metadata: { name: RUNTIME.name, namespace: "ml-team", labels: { "trainer.kubeflow.org/framework": options.torch === false ? "jax" : "torch" } },
  spec: {
    mlPolicy: options.torch === false ? { numNodes: 1, jax: {} } : { numNodes: 1, torch: {} },
    template: {
      spec: {
        replicatedJobs: [
          {
            name: options.step ?? "node",
            template: {
              metadata: { labels: { "trainer.kubeflow.org/trainjob-ancestor-step": "trainer" } },
              spec: { template: { spec: { containers: [{ name: "node", image: "example/trainer:1", env: [...(options.env ?? [])] }] } } }
            }
          }
        ]
      }
    }
  }
})

/** A valid request; `withWorkDir` forces WorkDir on or off. */
export const requestArb = (options: { withWorkDir?: boolean; maxEnv?: number } = {}): fc.Arbitrary<StartRequest> =>
  fc
    .record({
      job: fc.ulid(),
      generation: fc.integer({ min: 0, max: 18_000_000 }),
      submission: fc.integer({ min: 1, max: 999_999 }),
      attempt: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
      command: fc.array(text(), { minLength: 1, maxLength: 124 }),
      env: envOf(options.maxEnv ?? 20),
      workDir: options.withWorkDir === undefined ? fc.option(fc.constantFrom("/work", "rel/dir", "/a b/c"), { nil: undefined }) : fc.constant(options.withWorkDir ? "/work" : undefined),
      nodes: fc.integer({ min: 1, max: 10_000 }),
      gpusPerNode: fc.option(fc.nat(16), { nil: undefined }),
      procsPerNode: fc.option(fc.nat(8), { nil: undefined }),
      timeLimit: fc.option(timeLimit, { nil: undefined }),
      checkpoint: fc.option(fc.constantFrom("/ckpt", "s3://bucket/path"), { nil: undefined }),
      shared: fc.boolean(),
      image: fc.stringMatching(/^[a-z0-9.]{1,20}\/[a-z0-9]{1,20}:[a-z0-9.]{1,10}$/)
    })
    .map((r) => ({
      job: r.job,
      generation: r.generation,
      submission: r.submission,
      attempt: r.attempt,
      spec: {
        command: r.command,
        env: r.env,
        ...(r.workDir === undefined ? {} : { workDir: r.workDir }),
        nodes: r.nodes,
        ...(r.gpusPerNode === undefined ? {} : { gpusPerNode: r.gpusPerNode }),
        ...(r.procsPerNode === undefined ? {} : { procsPerNode: r.procsPerNode }),
        ...(r.timeLimit === undefined ? {} : { timeLimit: r.timeLimit }),
        ...(r.checkpoint === undefined ? {} : { checkpoint: r.checkpoint }),
        extensions: {
          "dispatch/Image": { ref: r.image },
          "kubeflow/RuntimeRef": { ...RUNTIME },
          ...(r.shared ? { "dispatch/SharedCheckpoint": {} } : {})
        }
      }
    }))

/** A valid config in either mode, with or without a custom label domain. */
export const configArb: fc.Arbitrary<BackendConfig> = fc
  .record({
    mode: fc.constantFrom("plain" as const, "kueue" as const),
    labelDomain: fc.constantFrom("dispatch.phpboyscout.uk", "example.org", "a.b.c-d.example"),
    gpuResource: fc.constantFrom("nvidia.com/gpu", "amd.com/gpu")
  })
  .map((c): BackendConfig => {
    const fields = {
      namespace: "ml-team",
      runtimes: [{ ...RUNTIME }],
      gpuResource: c.gpuResource,
      probeRuntime: { ...RUNTIME },
      timeouts: { callMs: 30_000, workloadMs: 120_000, callBoundMs: 300_000 },
      labelDomain: c.labelDomain
    }
    return c.mode === "kueue" ? { ...fields, mode: "kueue", kueue: { queue: "team-queue", admissionCheck: "dispatch-start" } } : { ...fields, mode: "plain" }
  })

/** A fixed plain-mode config with every default. */
export const plainConfig: BackendConfig = {
  namespace: "ml-team",
  mode: "plain",
  runtimes: [{ ...RUNTIME }],
  gpuResource: "nvidia.com/gpu",
  probeRuntime: { ...RUNTIME },
  timeouts: { callMs: 30_000, workloadMs: 120_000, callBoundMs: 300_000 },
  labelDomain: "dispatch.phpboyscout.uk"
}

/** A fixed valid request. */
export const exampleRequest: StartRequest = {
  job: "01JD8X2Q4M7N9P3R5S6T8V0W1Y",
  generation: 2,
  submission: 17,
  attempt: 1,
  spec: {
    command: ["python", "train.py"],
    env: { B: "2", A: "1" },
    nodes: 2,
    extensions: { "dispatch/Image": { ref: "example/train:1" }, "kubeflow/RuntimeRef": { ...RUNTIME } }
  }
}
