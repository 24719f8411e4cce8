// Protobuf request bodies: the wire reader and message tables against an encoder of their own (round
// trips for generated objects of every accepted kind), malformed and unsupported bodies, and a
// protobuf create over HTTP checked in the store.
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { decodeMessage, decodeProtobufBody, goDuration } from "../src/http/ProtobufBody.ts"
import { WireError } from "../src/http/ProtobufWire.ts"
import { builtinTables as tables } from "./BuiltinKinds.ts"
import { type Served, serve } from "./HttpFixture.ts"
import { encodeMessage, protobufBody } from "./ProtobufEncoder.ts"

// `dropped`: the field's zero value is left out of JSON (omitempty on a non-pointer), so never generated.
const scalar = (type: string, dropped: boolean): fc.Arbitrary<unknown> | undefined => {
  const nonZero = <T,>(arb: fc.Arbitrary<T>): fc.Arbitrary<T> => (dropped ? arb.filter((v) => v !== 0 && v !== false) : arb)
  switch (type) {
    case "string":
    case "quantity":
      return fc.string({ minLength: 1, maxLength: 6 })
    case "bytes":
      return fc.uint8Array({ minLength: 1, maxLength: 6 }).map((b) => Buffer.from(b).toString("base64"))
    case "bool":
      return nonZero(fc.boolean())
    case "int32":
      return nonZero(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }))
    case "int64":
      return nonZero(fc.maxSafeInteger())
    case "double":
      return nonZero(fc.double({ noNaN: true, noDefaultInfinity: true }).map((n) => (Object.is(n, -0) ? 0 : n)))
    case "time":
      return fc.integer({ min: 1, max: 4_000_000_000 }).map((s) => new Date(s * 1000).toISOString().replace(".000Z", "Z"))
    case "microTime":
      return fc.tuple(fc.integer({ min: 1, max: 4_000_000_000 }), fc.integer({ min: 0, max: 999_999 })).map(
        ([s, us]) => `${new Date(s * 1000).toISOString().slice(0, 19)}.${String(us).padStart(6, "0")}Z`
      )
    case "intOrString":
      return fc.oneof(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }), fc.string({ maxLength: 5 }))
    case "raw":
    case "fieldsV1":
      return fc.dictionary(fc.string({ maxLength: 4 }), fc.oneof(fc.string(), fc.integer(), fc.constant({})), { minKeys: 1, maxKeys: 3 })
    case "stringList":
      return fc.array(fc.string({ maxLength: 4 }), { minLength: 1, maxLength: 3 })
    default:
      return undefined
  }
}

// A generated object in the form decoding gives: no zero scalar where JSON's omitempty would drop it,
// no empty lists or maps (protobuf cannot tell them from absent ones), and no durations (their text
// form is Go's, checked on its own below). Nested messages stop at `depth`.
const objectOf = (name: string, depth: number): fc.Arbitrary<Record<string, unknown>> => {
  const table = tables.fields(name)
  if (table === undefined) throw new Error(name)
  const parts: Array<fc.Arbitrary<Record<string, unknown>>> = []
  const plain: Record<string, fc.Arbitrary<unknown>> = {}
  for (const spec of table.values()) {
    if (spec.type === "duration") continue
    const leaf = scalar(spec.type, spec.omitempty && !spec.pointer)
    if (spec.inline) {
      if (depth > 0) parts.push(objectOf(spec.type, depth - 1))
      continue
    }
    const single = leaf ?? (depth > 0 ? objectOf(spec.type, depth - 1) : undefined)
    if (single === undefined) continue
    plain[spec.json] = spec.map
      ? fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), single, { minKeys: 1, maxKeys: 2 })
      : spec.repeated
        ? fc.array(single, { minLength: 1, maxLength: 2 })
        : single
  }
  const own = fc.record(plain, { requiredKeys: [] }) as fc.Arbitrary<Record<string, unknown>>
  return fc.tuple(own, ...parts).map(([first, ...rest]) => Object.assign({}, ...rest, first) as Record<string, unknown>)
}

describe("protobuf bodies", () => {
  it.each(tables.kinds.map((k) => [k.kind, k]))("decode what an encoder of the same tables wrote (%s)", (_kind, k) => {
    const apiVersion = k.group === "" ? "v1" : `${k.group}/v1`
    fc.assert(
      fc.property(objectOf(k.message, 3), (object) => {
        const decoded = decodeProtobufBody(tables, protobufBody(apiVersion, k.kind, k.message, object))
        expect(decoded).toEqual({ ok: true, object: { apiVersion, kind: k.kind, ...object } })
      }),
      { numRuns: 40 }
    )
  })

  it("reads a namespace as kubectl create namespace sends it", () => {
    const body = protobufBody("v1", "Namespace", "core.v1.Namespace", { metadata: { name: "x", creationTimestamp: undefined }, spec: {}, status: {} })
    expect(decodeProtobufBody(tables, body)).toEqual({ ok: true, object: { apiVersion: "v1", kind: "Namespace", metadata: { name: "x" }, spec: {}, status: {} } })
  })

  it("prints durations as Go does", () => {
    expect([0n, 999n, 1_500n, 2_000_000n, 1_000_000_000n, 90_000_000_000n, 3_723_500_000_000n, -1_000_000_000n].map(goDuration)).toEqual([
      "0s",
      "999ns",
      "1.5µs",
      "2ms",
      "1s",
      "1m30s",
      "1h2m3.5s",
      "-1s"
    ])
  })

  it("prints every duration so that Go's ParseDuration reads it back exactly", () => {
    const units: Readonly<Record<string, bigint>> = { h: 3_600_000_000_000n, m: 60_000_000_000n, s: 1_000_000_000n, ms: 1_000_000n, "µs": 1_000n, ns: 1n }
    const parse = (text: string): bigint => {
      const sign = text.startsWith("-") ? -1n : 1n
      let total = 0n
      for (const [, whole = "", fraction = "", unit = ""] of text.matchAll(/(\d+)(?:\.(\d+))?(h|ms|µs|ns|m|s)/g)) {
        const scale = units[unit] ?? 0n
        total += BigInt(whole) * scale + (fraction === "" ? 0n : (BigInt(fraction) * scale) / 10n ** BigInt(fraction.length))
      }
      return sign * total
    }
    fc.assert(fc.property(fc.bigInt({ min: -(2n ** 63n) + 1n, max: 2n ** 63n - 1n }), (nanos) => {
        expect(parse(goDuration(nanos))).toBe(nanos)
      }), { numRuns: 2_000 })
  })

  it("answers 415 naming a kind it does not take as protobuf", () => {
    const body = protobufBody("trainer.kubeflow.org/v1alpha1", "TrainJob", "core.v1.Namespace", { metadata: { name: "t" } })
    const decoded = decodeProtobufBody(tables, body)
    expect(decoded.ok).toBe(false)
    if (decoded.ok) return
    expect(decoded.response.code).toBe(415)
    expect(decoded.response.body).toMatchObject({ reason: "UnsupportedMediaType", message: expect.stringContaining("trainer.kubeflow.org/v1alpha1, Kind=TrainJob") })
  })

  it("reads any bytes as any message or refuses them with a WireError, never another error", () => {
    fc.assert(
      fc.property(fc.constantFrom(...tables.names()), fc.uint8Array({ maxLength: 48 }), (name, bytes) => {
        try {
          decodeMessage(tables, name, bytes)
        } catch (error) {
          expect(error).toBeInstanceOf(WireError)
        }
      }),
      { numRuns: 20_000 }
    )
    // Well-formed messages with bytes overwritten reach the nested and special messages random bytes
    // seldom form.
    const kinds = tables.kinds.map((k) => k.message)
    const mutated = fc
      .constantFrom(...kinds)
      .chain((name) => fc.tuple(fc.constant(name), objectOf(name, 3), fc.array(fc.tuple(fc.nat(), fc.nat({ max: 255 })), { minLength: 1, maxLength: 4 })))
    fc.assert(
      fc.property(mutated, ([name, object, overwrite]) => {
        const bytes = Uint8Array.from(encodeMessage(name, object))
        for (const [at, value] of overwrite) if (bytes.length > 0) bytes[at % bytes.length] = value
        try {
          decodeMessage(tables, name, bytes)
        } catch (error) {
          expect(error).toBeInstanceOf(WireError)
        }
      }),
      { numRuns: 3_000 }
    )
    // A timestamp whose seconds arrive as bytes.
    const time = [0x0a, 0x01, 0x78]
    const meta = [0x42, time.length, ...time]
    expect(() => decodeMessage(tables, "core.v1.Namespace", Uint8Array.from([0x0a, meta.length, ...meta]))).toThrow(WireError)
  })

  it("answers 400, never throws, for any bytes after the magic", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (tail) => {
        const decoded = decodeProtobufBody(tables, Uint8Array.from([0x6b, 0x38, 0x73, 0x00, ...tail]))
        if (!decoded.ok) expect([400, 415]).toContain(decoded.response.code)
      }),
      { numRuns: 2_000 }
    )
    const cut = protobufBody("v1", "Namespace", "core.v1.Namespace", { metadata: { name: "x" } })
    expect(decodeProtobufBody(tables, cut.subarray(0, cut.length - 3))).toMatchObject({ ok: false, response: { code: 400 } })
    expect(decodeProtobufBody(tables, Uint8Array.from([1, 2, 3, 4, 5]))).toMatchObject({ ok: false, response: { code: 400 } })
  })
})

describe("protobuf bodies over HTTP", () => {
  let served: Served
  beforeAll(async () => {
    served = await serve({ controllers: {} })
  })
  afterAll(() => served.close())

  const post = (path: string, body: Uint8Array): Promise<Response> =>
    fetch(`${served.server.url}${path}`, { method: "POST", headers: { "content-type": "application/vnd.kubernetes.protobuf", accept: "application/vnd.kubernetes.protobuf,application/json" }, body })

  it("creates a namespace and a job from protobuf, answering JSON", async () => {
    const ns = await post("/api/v1/namespaces", protobufBody("v1", "Namespace", "core.v1.Namespace", { metadata: { name: "team-a", labels: { tier: "gold" } }, spec: {}, status: {} }))
    expect(ns.status).toBe(201)
    expect(ns.headers.get("content-type")).toContain("application/json")
    expect(served.simulator.system.get("namespaces", undefined, "team-a")).toMatchObject({ metadata: { name: "team-a", labels: { tier: "gold" } } })
    const job = {
      metadata: { name: "j" },
      spec: { template: { metadata: {}, spec: { containers: [{ name: "c", image: "busybox", command: ["echo", "hi"], resources: { limits: { cpu: "500m" } } }], restartPolicy: "Never" } } },
      status: {}
    }
    const created = await post("/apis/batch/v1/namespaces/team-a/jobs", protobufBody("batch/v1", "Job", "batch.v1.Job", job))
    expect(created.status).toBe(201)
    expect(served.simulator.system.get("jobs", "team-a", "j")).toMatchObject({ spec: job.spec })
  })

  it("reads a protobuf DeleteOptions: an orphaning delete leaves the job's pods", async () => {
    const created = await post("/api/v1/namespaces", protobufBody("v1", "Namespace", "core.v1.Namespace", { metadata: { name: "team-b" }, spec: {}, status: {} }))
    expect(created.status).toBe(201)
    const owner = await post("/apis/batch/v1/namespaces/team-b/jobs", protobufBody("batch/v1", "Job", "batch.v1.Job", { metadata: { name: "owner" }, spec: { template: { metadata: {}, spec: { containers: [{ name: "c", image: "busybox" }], restartPolicy: "Never" } } } }))
    const uid = ((await owner.json()) as { metadata: { uid: string } }).metadata.uid
    const pod = { metadata: { name: "dependent", ownerReferences: [{ apiVersion: "batch/v1", kind: "Job", name: "owner", uid, controller: true }] }, spec: { containers: [{ name: "c", image: "busybox" }] } }
    expect((await post("/api/v1/namespaces/team-b/pods", protobufBody("v1", "Pod", "core.v1.Pod", pod))).status).toBe(201)
    const deleted = await fetch(`${served.server.url}/apis/batch/v1/namespaces/team-b/jobs/owner`, {
      method: "DELETE",
      headers: { "content-type": "application/vnd.kubernetes.protobuf" },
      body: protobufBody("v1", "DeleteOptions", "meta.v1.DeleteOptions", { propagationPolicy: "Orphan" })
    })
    expect(deleted.status).toBe(200)
    served.simulator.advance(5_000)
    expect(served.simulator.system.get("jobs", "team-b", "owner")).toBeUndefined()
    expect(served.simulator.system.get("pods", "team-b", "dependent")).toBeDefined()
  })

  it("refuses a protobuf TrainJob with 415, and garbage with 400", async () => {
    const trainJob = await post("/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs", protobufBody("trainer.kubeflow.org/v1alpha1", "TrainJob", "core.v1.Namespace", { metadata: { name: "t" } }))
    expect(trainJob.status).toBe(415)
    expect(((await trainJob.json()) as { message: string }).message).toContain("Kind=TrainJob")
    const garbage = await post("/api/v1/namespaces", Uint8Array.from([0x6b, 0x38, 0x73, 0x00, 0x0a, 0x7f]))
    expect(garbage.status).toBe(400)
  })
})
