import { Result, Schema } from "effect"
import { torchRuntime } from "../../../test/fixtures/TorchRuntime.ts"
import { catalogOf, Entrypoint, Experiment, Queue, type Artifact, type Catalog, type JobRequest, type Refused } from "../src/index.ts"

/** The runtime every queue of the world uses. */
export const runtime = { kind: "TrainingRuntime", name: "dioptra-torch" } as const

/** A Trainer runtime object render accepts (torch, one `node` step). */
export const runtimeObject: Record<string, unknown> = torchRuntime({ name: runtime.name, namespace: "ml-team", image: "example/trainer:1" })

const config = { namespace: "ml-team", mode: "plain", runtimes: [runtime] } as const

/** Decodes with a schema, failing the test loudly when the fixture itself is wrong. */
export const decoded = <S extends Schema.ConstraintDecoder<unknown>>(schema: S, input: unknown): S["Type"] => {
  const result = Schema.decodeUnknownResult(schema)(input)
  if (Result.isFailure(result)) throw new Error(`fixture does not decode: ${String(result.failure)}`)
  return result.success
}

/** The world's task graph: a plain step, a step with a swap and its dependencies, and a second use of the same swap. */
export const taskGraph = {
  load: { load_dataset: { path: "$data_dir" } },
  train: {
    "?training_method": {
      method_a: { train_a: { epochs: "$epochs" } },
      method_b: { train_b: ["$epochs"] }
    },
    dependencies: ["load"]
  },
  evaluate: { "?optimizer": { sgd: { sgd: { lr: "$lr" } }, adam: { adam: { lr: "$lr" } } } },
  report: { "?training_method": { method_a: { report_a: {} }, method_b: { report_b: {} }, method_c: { report_c: {} } } }
}

/** Parameters covering every type, some with defaults. */
export const parameters = [
  { name: "data_dir", type: "string" },
  { name: "epochs", type: "integer" },
  { name: "lr", type: "float", defaultValue: "0.01" },
  { name: "shuffle", type: "boolean", defaultValue: "TRUE" },
  { name: "layers", type: "list", defaultValue: "[64, 32]" },
  { name: "options", type: "mapping", defaultValue: "{}" },
  { name: "seed", type: "integer" },
  { name: "note", type: "string" }
] as const

/** Entrypoint 10: two snapshots (the latest, 3, has the swaps); may run on queues 100 and 101. */
export const entrypoint: Entrypoint = decoded(Entrypoint, {
  id: 10,
  name: "train",
  queues: [100, 101],
  snapshots: [
    { snapshot: 2, parameters: [{ name: "epochs", type: "integer" }], artifactParameters: [], taskGraph: { only: { step: {} } }, image: "example/old:1", command: ["python", "old.py"] },
    {
      snapshot: 3,
      parameters,
      artifactParameters: [
        { name: "weights", artifactType: "model" },
        { name: "dataset", artifactType: "dataset" }
      ],
      taskGraph,
      command: ["python", "-m", "dioptra_runner"]
    }
  ]
})

/** Entrypoint 11: registered to experiment 1, allowed on queue 101 only, with its own image. */
export const otherEntrypoint: Entrypoint = decoded(Entrypoint, {
  id: 11,
  name: "other",
  queues: [101],
  snapshots: [{ snapshot: 1, parameters: [], artifactParameters: [], taskGraph: { s: { t: {} } }, image: "example/other:1", command: ["run"] }]
})

/** Entrypoint 12: exists, but registered to no experiment. */
export const strayEntrypoint: Entrypoint = decoded(Entrypoint, { ...otherEntrypoint, id: 12, queues: [100] })

/** Queue 100 has a default image; queue 101 has none; queue 102 is allowed for no entrypoint. */
export const queues: ReadonlyArray<Queue> = [
  decoded(Queue, { id: 100, name: "gpu", backend: { config, runtime, image: "example/dioptra-worker:1", nodes: 2, gpusPerNode: 1 } }),
  decoded(Queue, { id: 101, name: "cpu", backend: { config, runtime } }),
  decoded(Queue, { id: 102, name: "spare", backend: { config, runtime, image: "example/spare:1" } })
]

/** Experiment 1 has entrypoints 10 and 11. */
export const experiment: Experiment = decoded(Experiment, { id: 1, name: "robustness", entrypoints: [10, 11] })

/** Artifacts: 500 a model with snapshots 1 and 2, 501 a dataset. */
export const artifacts: ReadonlyArray<Artifact> = [
  { id: 500, artifactType: "model", snapshots: [1, 2] },
  { id: 501, artifactType: "dataset", snapshots: [7] }
]

/** The whole world. */
export const catalog: Catalog = catalogOf({
  experiments: [experiment],
  entrypoints: [entrypoint, otherEntrypoint, strayEntrypoint],
  queues,
  artifacts
})

/** A request that passes every check. */
export const validRequest: JobRequest = {
  entrypoint: 10,
  queue: 100,
  values: { data_dir: "/data", epochs: "5", seed: "42", note: "first" },
  artifactValues: { weights: { id: 500, snapshotId: 2 }, dataset: { id: 501, snapshotId: 7 } },
  swaps: { training_method: "method_a", optimizer: "adam" },
  timeout: "2h",
  description: "a run"
}

/** The failure of a result, failing the test when it succeeded. */
export const failureOf = <A, E>(result: Result.Result<A, E>): E => {
  if (Result.isSuccess(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.success)}`)
  return result.failure
}

/** The success of a result, failing the test with the refusal when it failed. */
export const successOf = <A, E>(result: Result.Result<A, E>): A => {
  if (Result.isFailure(result)) throw new Error(`expected a success, got ${JSON.stringify(result.failure)}`)
  return result.success
}

/** The tags of a refusal's problems, in order. */
export const tagsOf = (refusal: Refused): Array<string> => refusal.problems.map((p) => p._tag)
