// The Queue schema: a queue's backend is one render accepts, and its runtime one the backend lists.
import { Result, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { Queue } from "../src/index.ts"
import { failureOf } from "./Fixtures.ts"

const refusalText = (schema: Schema.Top & Schema.ConstraintDecoder<unknown>, input: unknown) =>
  String(failureOf(Schema.decodeUnknownResult(schema)(input, { errors: "all" })))

describe("Queue schema", () => {
  const config = { namespace: "ml", mode: "plain", runtimes: [{ kind: "ClusterTrainingRuntime", name: "torch" }] }
  it("accepts a backend whose runtime is configured", () => {
    expect(Result.isSuccess(Schema.decodeUnknownResult(Queue)({ id: 1, name: "q", backend: { config, runtime: { kind: "ClusterTrainingRuntime", name: "torch" } } }))).toBe(true)
  })

  it("refuses a runtime the backend does not list, since Start would refuse every job", () => {
    const queue = { id: 1, name: "q", backend: { config, runtime: { kind: "TrainingRuntime", name: "torch" } } }
    expect(refusalText(Queue, queue)).toContain("runtime TrainingRuntime/torch is not one of the backend's configured runtimes")
  })

  it("refuses a backend configuration render would refuse, with render's reasons", () => {
    const bad = { ...config, namespace: "Not_A_Label" }
    const queue = { id: 1, name: "q", backend: { config: bad, runtime: config.runtimes[0] } }
    expect(refusalText(Queue, queue)).toContain('config namespace: "Not_A_Label" is not a DNS-1123 label')
  })

  it("refuses zero nodes", () => {
    const queue = { id: 1, name: "q", backend: { config, runtime: config.runtimes[0], nodes: 0 } }
    expect(refusalText(Queue, queue)).toContain("nodes")
  })
})
