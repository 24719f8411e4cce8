import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { createJobRequest, maxJsonDepth, validateJobRequest, type JobRequest } from "../src/index.ts"
import { catalog, failureOf, successOf, tagsOf, validRequest } from "./Fixtures.ts"

type Mutable = {
  experiment: number
  request: { -readonly [K in keyof JobRequest]: JobRequest[K] } & {
    values: Record<string, string>
    artifactValues: Record<string, { id: number; snapshotId: number }>
    swaps: Array<{ swap_name: string; task_alias: string }>
  }
}

const fresh = (): Mutable => ({
  experiment: 1,
  request: {
    ...validRequest,
    values: { ...validRequest.values },
    artifactValues: { ...validRequest.artifactValues },
    swaps: [
      { swap_name: "training_method", task_alias: "method_a" },
      { swap_name: "optimizer", task_alias: "adam" }
    ]
  }
})

/** A fault: how it changes a valid request, and the problem tags it must produce. */
type Fault = { readonly apply: (m: Mutable) => void; readonly tags: ReadonlyArray<string> }
const fault = (tags: ReadonlyArray<string>, apply: (m: Mutable) => void): Fault => ({ apply, tags })
const none = fault([], () => {})
const swapFaults = (swap: string, other: string) => [
  none,
  fault(["MissingSwap"], (m) => void (m.request.swaps = m.request.swaps.filter((s) => s.swap_name !== swap))),
  fault(["DuplicateSwap"], (m) => void m.request.swaps.push({ swap_name: swap, task_alias: other })),
  fault(["UnknownTaskAlias"], (m) => void (m.request.swaps = m.request.swaps.map((s) => (s.swap_name === swap ? { ...s, task_alias: "no_such_alias" } : s))))
]
const artifactFaults = (parameter: string, wrongType: { id: number; snapshotId: number }) => [
  none,
  fault(["MissingArtifactValue"], (m) => void delete m.request.artifactValues[parameter]),
  fault(["ArtifactNotFound"], (m) => void (m.request.artifactValues[parameter] = { id: 999, snapshotId: 1 })),
  fault(["ArtifactNotFound"], (m) => void (m.request.artifactValues[parameter] = { id: 500, snapshotId: 3 })),
  fault(["ArtifactTypeMismatch"], (m) => void (m.request.artifactValues[parameter] = wrongType))
]

// Each slot changes a different part of the request, so faults in different slots cannot mask each other.
const faultSlots: ReadonlyArray<fc.Arbitrary<Fault>> = [
  fc.constantFrom(none, fault(["ExperimentNotFound"], (m) => void (m.experiment = 2))),
  fc.constantFrom(
    none,
    fault(["QueueNotFound"], (m) => void (m.request.queue = 999)),
    fault(["QueueNotAllowed"], (m) => void (m.request.queue = 102)),
    fault(["NoImage"], (m) => void (m.request.queue = 101))
  ),
  fc.integer({ min: 0, max: 3 }).map((n) => fault(Array(n).fill("UnknownValue"), (m) => { for (let i = 0; i < n; i++) m.request.values[`unknown_${i}`] = "1" })),
  ...["data_dir", "note"].map((p) => fc.constantFrom(none, fault(["MissingValue"], (m) => void delete m.request.values[p]))),
  ...[["epochs", "x"], ["seed", "1.5"], ["lr", "fast"], ["shuffle", "maybe"], ["layers", "{}"], ["options", "[1]"]].map(([p = "", bad = ""]) =>
    fc.constantFrom(none, fault(["UncoercibleValue"], (m) => void (m.request.values[p] = bad)))
  ),
  fc.integer({ min: 0, max: 2 }).map((n) => fault(Array(n).fill("UnknownArtifactValue"), (m) => { for (let i = 0; i < n; i++) m.request.artifactValues[`extra_${i}`] = { id: 500, snapshotId: 1 } })),
  fc.constantFrom(...artifactFaults("weights", { id: 501, snapshotId: 7 })),
  fc.constantFrom(...artifactFaults("dataset", { id: 500, snapshotId: 1 })),
  fc.constantFrom(...swapFaults("training_method", "method_b")),
  fc.constantFrom(...swapFaults("optimizer", "sgd")),
  fc.integer({ min: 0, max: 2 }).map((n) => fault(Array(n).fill("UnknownSwap"), (m) => { for (let i = 0; i < n; i++) m.request.swaps.push({ swap_name: `bogus_${i}`, task_alias: "a" }) })),
  fc.constantFrom(none, fault(["InvalidTimeout"], (m) => void (m.request.timeout = "1.5h")), fault(["InvalidTimeout"], (m) => void (m.request.timeout = "0")))
]

const sortedTags = (tags: ReadonlyArray<string>) => [...tags].sort()

// Upstream's order of checks; problems found by one check share its rank.
const checkOrder: ReadonlyArray<ReadonlyArray<string>> = [
  ["ExperimentNotFound"],
  ["EntrypointNotFound", "EntrypointNotInExperiment"],
  ["QueueNotFound", "QueueNotAllowed"],
  ["SnapshotNotFound"],
  ["NoImage"],
  ["UnknownValue"],
  ["MissingValue"],
  ["UncoercibleValue"],
  ["UnknownArtifactValue"],
  ["MissingArtifactValue", "ArtifactNotFound", "ArtifactTypeMismatch"],
  ["MissingSwap", "DuplicateSwap", "UnknownSwap", "UnknownTaskAlias"],
  ["InvalidTimeout"]
]
const rankOf = (tag: string) => checkOrder.findIndex((tags) => tags.includes(tag))

describe("validateJobRequest", () => {
  test.prop([fc.tuple(...faultSlots)])("reports exactly k problems for k injected faults, every one named", (faults) => {
    const m = fresh()
    for (const f of faults) f.apply(m)
    const expected = faults.flatMap((f) => f.tags)
    const result = validateJobRequest(m.experiment, m.request, catalog)
    if (expected.length === 0) successOf(result)
    else expect(sortedTags(tagsOf(failureOf(result)))).toEqual(sortedTags(expected))
  })

  test.prop([fc.tuple(...faultSlots)])("reports the problems in upstream's order of checks: unknown, then missing, then uncoercible values", (faults) => {
    const m = fresh()
    for (const f of faults) f.apply(m)
    const result = validateJobRequest(m.experiment, m.request, catalog)
    if (Result.isSuccess(result)) return
    const ranks = tagsOf(result.failure).map(rankOf)
    expect(ranks.every((rank) => rank >= 0)).toBe(true)
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b))
  })

  it("reports every missing value before any value that does not coerce, whatever the parameters' order", () => {
    // epochs comes before note among the parameters; upstream still reports the missing note first.
    const { note: _note, ...values } = { ...validRequest.values, epochs: "five", note: "" }
    const refusal = failureOf(validateJobRequest(1, { ...validRequest, values: { ...values, bogus: "1" } }, catalog))
    expect(refusal.problems.map((p) => [p._tag, p.message])).toEqual([
      ["UnknownValue", '"bogus" is not a parameter of the entrypoint; parameters: data_dir, epochs, lr, shuffle, layers, options, seed, note'],
      ["MissingValue", 'parameter "note" has no default and needs a value'],
      ["UncoercibleValue", 'value "five" of parameter "epochs" is not a integer: it is not a whole number']
    ])
  })

  it("refuses a list or mapping value nested deeper than the bound, before parsing it, naming the parameter, the bound and its length", () => {
    const layers = "[".repeat(maxJsonDepth + 1) + "]".repeat(maxJsonDepth + 1)
    const options = `${'{"a":'.repeat(5000)}1${"}".repeat(5000)}`
    const refusal = failureOf(validateJobRequest(1, { ...validRequest, values: { ...validRequest.values, layers, options } }, catalog))
    expect(refusal.problems.map((p) => ({ ...p }))).toEqual([
      { _tag: "ValueTooDeep", parameter: "layers", type: "list", fromDefault: false, limit: maxJsonDepth, length: layers.length },
      { _tag: "ValueTooDeep", parameter: "options", type: "mapping", fromDefault: false, limit: maxJsonDepth, length: options.length }
    ])
    expect(refusal.problems[1]?.message).toBe(
      `the value of parameter "options", a mapping of ${options.length} characters, nests more than ${maxJsonDepth} levels deep; at most ${maxJsonDepth} levels are accepted`
    )
    // As deep as the bound is a value like any other; a string nests nothing, however it reads.
    const atBound = "[".repeat(maxJsonDepth) + "]".repeat(maxJsonDepth)
    expect(successOf(validateJobRequest(1, { ...validRequest, values: { ...validRequest.values, layers: atBound, note: layers } }, catalog)).values["note"]).toBe(layers)
  })

  it("accepts a valid request: defaults filled, values coerced, latest snapshot, swaps as a dictionary", () => {
    expect(successOf(validateJobRequest(1, validRequest, catalog))).toEqual({
      experiment: 1,
      entrypoint: 10,
      entrypointSnapshot: 3,
      queue: 100,
      values: { data_dir: "/data", epochs: 5, lr: 0.01, shuffle: true, layers: [64, 32], options: {}, seed: 42, note: "first" },
      artifactValues: { weights: { id: 500, snapshotId: 2 }, dataset: { id: 501, snapshotId: 7 } },
      swaps: { training_method: "method_a", optimizer: "adam" },
      timeoutSeconds: 7200,
      timeout: "2h",
      description: "a run"
    })
  })

  it("defaults the timeout to 24h and the description to empty", () => {
    const { timeout: _t, description: _d, ...rest } = validRequest
    const accepted = successOf(validateJobRequest(1, rest, catalog))
    expect([accepted.timeoutSeconds, accepted.timeout, accepted.description]).toEqual([86400, "24h", ""])
  })

  it("runs the named snapshot when one is given", () => {
    const accepted = successOf(validateJobRequest(1, { entrypoint: 10, queue: 100, entrypointSnapshot: 2, values: { epochs: "3" } }, catalog))
    expect([accepted.entrypointSnapshot, accepted.values]).toEqual([2, { epochs: 3 }])
  })

  const withRequest = (change: Partial<JobRequest>): JobRequest => ({ ...validRequest, ...change })
  it.each([
    ["ExperimentNotFound", 7, validRequest, 404, "experiment 7 does not exist"],
    ["EntrypointNotFound", 1, withRequest({ entrypoint: 77 }), 400, "entrypoint 77 does not exist"],
    ["EntrypointNotInExperiment", 1, withRequest({ entrypoint: 12, values: {}, artifactValues: {}, swaps: {} }), 400, "entrypoint 12 is not registered to experiment 1"],
    ["QueueNotFound", 1, withRequest({ queue: 999 }), 400, "queue 999 does not exist"],
    ["QueueNotAllowed", 1, withRequest({ queue: 102 }), 400, "entrypoint 10 may not run on queue 102; its queues are 100, 101"],
    ["SnapshotNotFound", 1, withRequest({ entrypointSnapshot: 9 }), 404, "entrypoint 10 has no snapshot 9"],
    ["NoImage", 1, withRequest({ queue: 101 }), 400, "entrypoint 10 names no image and queue 101 has no default image"],
    ["UnknownValue", 1, withRequest({ values: { ...validRequest.values, batch: "3" } }), 400, '"batch" is not a parameter of the entrypoint; parameters: data_dir, epochs, lr, shuffle, layers, options, seed, note'],
    ["MissingValue", 1, withRequest({ values: { data_dir: "/d", epochs: "1", seed: "1" } }), 400, 'parameter "note" has no default and needs a value'],
    ["UncoercibleValue", 1, withRequest({ values: { ...validRequest.values, epochs: "five" } }), 400, 'value "five" of parameter "epochs" is not a integer: it is not a whole number'],
    ["UnknownArtifactValue", 1, withRequest({ artifactValues: { ...validRequest.artifactValues, extra: { id: 500, snapshotId: 1 } } }), 400, '"extra" is not an artifact parameter of the entrypoint; artifact parameters: weights, dataset'],
    ["MissingArtifactValue", 1, withRequest({ artifactValues: { weights: { id: 500, snapshotId: 1 } } }), 400, 'artifact parameter "dataset" needs an artifact {id, snapshotId}'],
    ["ArtifactNotFound", 1, withRequest({ artifactValues: { ...validRequest.artifactValues, weights: { id: 500, snapshotId: 5 } } }), 404, 'artifact parameter "weights": artifact 500 snapshot 5 does not exist'],
    ["ArtifactTypeMismatch", 1, withRequest({ artifactValues: { ...validRequest.artifactValues, weights: { id: 501, snapshotId: 7 } } }), 400, 'artifact parameter "weights" loads a model, but artifact 501 is a dataset'],
    ["MissingSwap", 1, withRequest({ swaps: { training_method: "method_a" } }), 400, 'swap "optimizer" needs a task alias, one of: sgd, adam'],
    ["DuplicateSwap", 1, withRequest({ swaps: [{ swapName: "optimizer", taskAlias: "sgd" }, { swapName: "training_method", taskAlias: "method_a" }, { swapName: "optimizer", taskAlias: "sgd" }] }), 400, 'swap "optimizer" is selected 2 times (sgd, sgd); select it once'],
    ["UnknownSwap", 1, withRequest({ swaps: { training_method: "method_a", optimizer: "sgd", lr_schedule: "cosine" } }), 400, `swap "lr_schedule" is not in the entrypoint's task graph; the graph's swaps are: training_method, optimizer`],
    ["UnknownTaskAlias", 1, withRequest({ swaps: { training_method: "method_a", optimizer: "rmsprop" } }), 400, 'task alias "rmsprop" is not a choice of swap "optimizer" in step "evaluate"; choices: sgd, adam'],
    ["InvalidTimeout", 1, withRequest({ timeout: "3w" }), 400, 'timeout "3w" is refused: expected a whole number followed by an optional unit d, h, m or s (no sign, decimals or spaces)']
  ] as const)("refuses with %s", (tag, experiment, request, status, message) => {
    const refusal = failureOf(validateJobRequest(experiment, request as JobRequest, catalog))
    expect(refusal.problems.map((p) => [p._tag, p.message, p.status])).toEqual([[tag, message, status]])
    expect(refusal.problems[0]?.status).toBe(status)
  })

  it("refuses a default that does not coerce, saying it was the default", () => {
    const entrypoint = catalog.entrypoint(10)!
    const broken = { ...entrypoint, snapshots: entrypoint.snapshots.map((v) => ({ ...v, parameters: v.parameters.map((p) => (p.name === "lr" ? { ...p, defaultValue: "fast" } : p)) })) }
    const withBroken = { ...catalog, entrypoint: (id: number) => (id === 10 ? broken : catalog.entrypoint(id)) }
    const refusal = failureOf(validateJobRequest(1, validRequest, withBroken))
    expect(refusal.problems.map((p) => p.message)).toEqual(['the default value "fast" of parameter "lr" is not a float: it is not a decimal number'])
  })

  it("lists first the problem whose check upstream would have failed first, which decides the answer's status", () => {
    const refusal = failureOf(validateJobRequest(1, withRequest({ queue: 102, entrypointSnapshot: 9 }), catalog))
    expect(tagsOf(refusal)).toEqual(["QueueNotAllowed", "SnapshotNotFound"])
    expect(refusal.problems.map((p) => p.status)).toEqual([400, 404])
  })
})

describe("createJobRequest", () => {
  it("names every malformed field of the body at once", () => {
    const refusal = failureOf(createJobRequest(1, { entrypoint: "10", queue: 1.5, values: { a: 1 }, swaps: 3 }, catalog))
    expect(refusal.problems.every((p) => p._tag === "MalformedRequest" && p.status === 400)).toBe(true)
    expect(refusal.problems.map((p) => (p._tag === "MalformedRequest" ? p.path : "")).sort()).toEqual(["entrypoint", "queue", "swaps", "values.a"])
  })

  it.each([
    ["a snake_case spelling of a known field", { ...validRequest, entrypoint_snapshot: 2 }, [["entrypoint_snapshot", "request body field entrypoint_snapshot: unknown field"]]],
    [
      "every unknown top-level field",
      { ...validRequest, bogus: 1, priority: "high" },
      [
        ["bogus", "request body field bogus: unknown field"],
        ["priority", "request body field priority: unknown field"]
      ]
    ],
    [
      "an unknown field of an artifact value",
      { ...validRequest, artifactValues: { ...validRequest.artifactValues, weights: { id: 500, snapshotId: 1, version: 3 } } },
      [["artifactValues.weights.version", "request body field artifactValues.weights.version: unknown field"]]
    ],
    [
      "an unknown field of a swap in the list form, once",
      { ...validRequest, swaps: [{ swap_name: "training_method", task_alias: "method_a", note: "x" }, { swapName: "optimizer", taskAlias: "adam" }] },
      [["swaps.0.note", "request body field swaps.0.note: unknown field"]]
    ],
    [
      "a swap that mixes the two spellings",
      { ...validRequest, swaps: [{ swap_name: "training_method", taskAlias: "method_a" }, { swapName: "optimizer", taskAlias: "adam" }] },
      [["swaps.0", "request body field swaps.0: expected either {swap_name, task_alias} or {swapName, taskAlias}"]]
    ],
    ["unknown fields beside wrong types", { entrypoint: "10", queue: 100, entrypoint_snapshot: 2 }, [["entrypoint", "request body field entrypoint: Expected number"], ["entrypoint_snapshot", "request body field entrypoint_snapshot: unknown field"]]]
  ] as const)("refuses %s with one MalformedRequest each", (_what, body, expected) => {
    const refusal = failureOf(createJobRequest(1, body, catalog))
    expect(refusal.problems.map((p) => [p._tag, p.status])).toEqual(expected.map(() => ["MalformedRequest", 400]))
    expect(refusal.problems.map((p) => [p._tag === "MalformedRequest" ? p.path : "", p.message]).sort()).toEqual([...expected].map((e) => [...e]).sort())
  })

  it("refuses a body that is not an object", () => {
    expect(tagsOf(failureOf(createJobRequest(1, "job", catalog)))).toEqual(["MalformedRequest"])
  })

  it("decodes then validates: the REST list form in camelCase is accepted", () => {
    const body = JSON.parse(JSON.stringify({ ...validRequest, swaps: [{ swapName: "training_method", taskAlias: "method_b" }, { swapName: "optimizer", taskAlias: "sgd" }] }))
    expect(successOf(createJobRequest(1, body, catalog)).swaps).toEqual({ training_method: "method_b", optimizer: "sgd" })
  })

  it("accepts a bare number of seconds as the timeout", () => {
    expect(successOf(createJobRequest(1, { ...validRequest, timeout: 90 }, catalog)).timeoutSeconds).toBe(90)
    expect(tagsOf(failureOf(createJobRequest(1, { ...validRequest, timeout: 1.5 }, catalog)))).toEqual(["InvalidTimeout"])
  })
})
