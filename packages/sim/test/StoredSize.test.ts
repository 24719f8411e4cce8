// etcd's 1.5 MiB request limit: the object as it would be stored is measured, and a write that would
// store more is refused with etcd's 500 and leaves the store as it was.
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import type { KubeObject } from "../src/Api.ts"
import { jsonLength, maxStoredObjectBytes, storedSize, tooLargeToStore } from "../src/apiserver/store/StoredSize.ts"
import { freezeJson, freezeParts, isDeeplyFrozen } from "../src/apiserver/store/JsonValue.ts"
import { at, bareSimulator, call, clusterRuntime, created, meta, read, trainJob } from "./SimFixture.ts"

const etcdRefusal = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "etcdserver: request is too large", code: 500 }

// A TrainJob whose stored JSON is `bytes` long: its command carries the padding (each item may hold
// up to 1 MiB, so two items reach past the limit).
const jobOfSize = (sim: ReturnType<typeof bareSimulator>, name: string, bytes: number, metadata: Record<string, unknown> = {}): KubeObject => {
  const withPadding = (pad: number): KubeObject => {
    const half = Math.floor(pad / 2)
    return trainJob(name, { trainer: { command: ["x".repeat(half), "x".repeat(pad - half)] } }, metadata)
  }
  // Measure the object as the server would store it (dry run), then size the padding to hit `bytes`.
  const probe = call(sim, { verb: "create", ...at("trainjobs"), body: withPadding(0), dryRun: true })
  expect(probe.code).toBe(201)
  return withPadding(bytes - storedSize(probe.body as KubeObject))
}

describe("storedSize and tooLargeToStore", () => {
  // Keys JSON escapes, and values that leave members out (undefined) or change (frozen parts measured once).
  const key = fc.oneof(fc.constantFrom("__proto__", "a\"b", "é", "line\n", ""), fc.string({ maxLength: 4 }))
  test.prop([fc.dictionary(key, fc.option(fc.jsonValue({ maxDepth: 3 }), { nil: undefined }), { maxKeys: 6, noNullPrototype: true }), fc.array(fc.boolean(), { maxLength: 6 })], { numRuns: 200 })(
    "measures an object's JSON exactly, whichever of its parts are frozen, and again after they were measured",
    (members, freezes) => {
      const object: Record<string, unknown> = {}
      Object.entries(members).forEach(([k, v], i) => Object.defineProperty(object, k, { value: freezes[i] === true ? freezeJson(v) : v, enumerable: true, writable: true, configurable: true }))
      expect(jsonLength(object)).toBe(JSON.stringify(object).length)
      // The same frozen parts under a new top level, as a status update keeps the stored spec.
      const next = { ...object, extra: { n: 1 } }
      expect(jsonLength(next)).toBe(JSON.stringify(next).length)
    }
  )

  // The bound that spares most writes the exact measure must never be under it, or an object over the
  // limit would be stored: escapes, multi-byte characters, lone surrogates and long numbers included.
  const text = fc.string({ unit: fc.constantFrom("a", "\"", "\\", "\n", "\u0001", "é", "€", "😀", "\ud800", "\udfff"), maxLength: 12 })
  const part = fc.jsonValue({ maxDepth: 3 }).chain((v) => fc.oneof(fc.constant(v), text, fc.double(), fc.array(text, { maxLength: 4 })))
  test.prop([fc.dictionary(text, part, { maxKeys: 6, noNullPrototype: true }), fc.array(fc.boolean(), { maxLength: 6 })], { numRuns: 300 })(
    "bounds an object's JSON in UTF-8 from above, frozen on the way, whichever parts were frozen before",
    (members, frozenBefore) => {
      const object: Record<string, unknown> = {}
      Object.entries(members).forEach(([k, v], i) => Object.defineProperty(object, k, { value: frozenBefore[i] === true ? freezeJson(v) : v, enumerable: true, writable: true, configurable: true }))
      const bytes = Buffer.byteLength(JSON.stringify(object), "utf8")
      expect(freezeParts(object)).toBeGreaterThanOrEqual(bytes)
      for (const v of Object.values(object)) if (typeof v === "object" && v !== null) expect(isDeeplyFrozen(v)).toBe(true)
      // Again, from the bounds the parts now carry.
      expect(freezeParts(object)).toBeGreaterThanOrEqual(bytes)
    }
  )

  test.prop(
    [
      fc.constantFrom("a", "é", "€", "😀"),
      fc.integer({ min: -4, max: 4 }),
      fc.constantFrom(maxStoredObjectBytes, Math.floor(maxStoredObjectBytes / 2), Math.floor(maxStoredObjectBytes / 3))
    ],
    { numRuns: 30 }
  )("refuses exactly the objects whose JSON is over 1.5 MiB in UTF-8, whatever the characters", (char, offset, around) => {
    const charBytes = new TextEncoder().encode(char).length
    const object: KubeObject = { metadata: { name: "n" }, data: char.repeat(Math.max(0, Math.floor(around / charBytes) + offset)) }
    const size = storedSize(object)
    expect(size).toBe(Buffer.byteLength(JSON.stringify(object), "utf8"))
    expect(tooLargeToStore(object) !== undefined).toBe(size > maxStoredObjectBytes)
  })
})

describe("the store's size limit", () => {
  it("refuses a create whose stored object is over the limit with etcd's 500, and stores nothing", () => {
    const sim = bareSimulator()
    const over = call(sim, { verb: "create", ...at("trainjobs"), body: jobOfSize(sim, "big", maxStoredObjectBytes + 1) })
    expect(over).toEqual({ code: 500, body: etcdRefusal })
    expect(read(sim, "trainjobs", "big")).toBeUndefined()
    expect(meta(created(sim, "trainjobs", jobOfSize(sim, "fits", maxStoredObjectBytes)))["name"]).toBe("fits")
  })

  it("lets a dry run through, as etcd never sees it", () => {
    const sim = bareSimulator()
    expect(call(sim, { verb: "create", ...at("trainjobs"), body: jobOfSize(sim, "dry", maxStoredObjectBytes + 10), dryRun: true }).code).toBe(201)
  })

  it("refuses an update that grows an object over the limit, and keeps the stored one", () => {
    const sim = bareSimulator()
    const runtime = created(sim, "clustertrainingruntimes", clusterRuntime("grown"))
    const container = { name: "node", image: "example.org/x:1", command: ["y".repeat(maxStoredObjectBytes)] }
    const grown = { ...runtime, spec: { ...(runtime["spec"] as object), template: { spec: { replicatedJobs: [{ name: "node", template: { spec: { template: { spec: { containers: [container] } } } } }] } } } }
    expect(call(sim, { verb: "update", ...at("clustertrainingruntimes"), name: "grown", body: grown })).toEqual({ code: 500, body: etcdRefusal })
    expect(read(sim, "clustertrainingruntimes", "grown")).toEqual(runtime)
  })

  it("refuses the deletion mark that would take an object over the limit", () => {
    const sim = bareSimulator()
    const stored = created(sim, "trainjobs", jobOfSize(sim, "brim", maxStoredObjectBytes - 5, { finalizers: ["example.org/hold"] }))
    expect(call(sim, { verb: "delete", ...at("trainjobs"), name: "brim", propagationPolicy: "Foreground" })).toEqual({ code: 500, body: etcdRefusal })
    expect(meta(read(sim, "trainjobs", "brim"))).toEqual(meta(stored))
  })
})
