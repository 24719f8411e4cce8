// Request bodies in Kubernetes' protobuf form (`application/vnd.kubernetes.protobuf`, what kubectl's
// typed clients send for built-in kinds): the `k8s\0` magic, a runtime.Unknown envelope naming the
// apiVersion and kind, and the typed message, turned into the JSON object the rest of the simulator
// reads, as the real server's protobuf decoding followed by its JSON encoding would give it.
import { type ApiResponse, statusBody } from "../Api.ts"
import type { KindRegistry } from "../kinds/KindRegistry.ts"
import { apiMessages } from "./ApiMessages.ts"
import { type WireField, WireError, readFields, readPackedVarints } from "./ProtobufWire.ts"
import { memoizeText } from "./TextMemo.ts"

/** One field of a message table. */
export interface MessageField {
  readonly json: string
  readonly type: string
  readonly repeated: boolean
  readonly map: boolean
  readonly omitempty: boolean
  readonly pointer: boolean
  readonly inline: boolean
}

const parseTable = (text: string): ReadonlyMap<number, MessageField> => {
  const fields = new Map<number, MessageField>()
  for (const entry of text.split(" ").filter((e) => e !== "")) {
    const [number = "", json = "", type = "", flags = ""] = entry.split(":")
    fields.set(Number(number), {
      json,
      type,
      repeated: flags.includes("r"),
      map: flags.includes("m"),
      omitempty: flags.includes("o"),
      pointer: flags.includes("p"),
      inline: flags.includes("i")
    })
  }
  return fields
}

/** A kind accepted as a protobuf body: its apiVersion group ("" for core), its kind and its message. */
export interface ProtobufKind {
  readonly group: string
  readonly kind: string
  readonly message: string
}

// The review kinds and TokenRequest, which the API server serves whatever kinds it stores.
const reviewKinds: ReadonlyArray<ProtobufKind> = [
  { group: "authentication.k8s.io", kind: "TokenRequest", message: "authentication.v1.TokenRequest" },
  { group: "authorization.k8s.io", kind: "SelfSubjectAccessReview", message: "authorization.v1.SelfSubjectAccessReview" },
  { group: "authorization.k8s.io", kind: "SelfSubjectRulesReview", message: "authorization.v1.SelfSubjectRulesReview" },
  { group: "authorization.k8s.io", kind: "SubjectAccessReview", message: "authorization.v1.SubjectAccessReview" }
]

/** The message tables one server decodes with: the API server's own and those of the kinds it serves. */
export class MessageTables {
  // Each table parsed once, on first use: a pure memo of this server's constant tables.
  private readonly parsed = new Map<string, ReadonlyMap<number, MessageField>>()
  /** The kinds accepted as protobuf bodies. */
  readonly kinds: ReadonlyArray<ProtobufKind>

  constructor(private readonly registry: KindRegistry) {
    this.kinds = [
      ...registry.kinds.flatMap((k) => (k.protobufMessage === undefined ? [] : [{ group: k.group, kind: k.kind, message: k.protobufMessage }])),
      ...reviewKinds
    ]
  }

  /** The fields of a message by number, or undefined for a message the tables do not know. */
  fields(name: string): ReadonlyMap<number, MessageField> | undefined {
    const known = this.parsed.get(name)
    if (known !== undefined) return known
    const text = Object.hasOwn(apiMessages, name) ? apiMessages[name] : this.registry.protobufMessage(name)
    if (text === undefined) return undefined
    const fields = parseTable(text)
    this.parsed.set(name, fields)
    return fields
  }

  /** Every message name the tables know. */
  names(): ReadonlyArray<string> {
    return [...Object.keys(apiMessages), ...this.registry.kinds.flatMap((k) => Object.keys(k.protobuf))]
  }
}

const scalarTypes = new Set(["string", "bytes", "int32", "int64", "uint32", "uint64", "bool", "double"])
const varintTypes = new Set(["int32", "int64", "uint32", "uint64", "bool"])

const utf8 = new TextDecoder()

const twoDigits = (n: number): string => String(n).padStart(2, "0")

// RFC 3339 in UTC, with `fraction` digits of the second (0 for metav1.Time, 6 for MicroTime).
const rfc3339 = (seconds: bigint, nanos: number, fraction: number): string => {
  const date = new Date(Number(seconds) * 1000)
  if (Number.isNaN(date.getTime())) throw new WireError(`timestamp ${seconds} is out of range`)
  const whole = `${String(date.getUTCFullYear()).padStart(4, "0")}-${twoDigits(date.getUTCMonth() + 1)}-${twoDigits(date.getUTCDate())}T${twoDigits(date.getUTCHours())}:${twoDigits(date.getUTCMinutes())}:${twoDigits(date.getUTCSeconds())}`
  return fraction === 0 ? `${whole}Z` : `${whole}.${String(Math.trunc(nanos / 10 ** (9 - fraction))).padStart(fraction, "0")}Z`
}

const trimFraction = (whole: bigint, fraction: bigint, digits: number): string => {
  const text = fraction === 0n ? "" : `.${fraction.toString().padStart(digits, "0").replace(/0+$/, "")}`
  return `${whole}${text}`
}

/** A duration in nanoseconds as Go's time.Duration prints it (`1h2m3.5s`, `250ms`, `0s`). */
export const goDuration = (nanos: bigint): string => {
  const sign = nanos < 0n ? "-" : ""
  const n = nanos < 0n ? -nanos : nanos
  if (n === 0n) return "0s"
  if (n < 1_000n) return `${sign}${n}ns`
  if (n < 1_000_000n) return `${sign}${trimFraction(n / 1_000n, n % 1_000n, 3)}µs`
  if (n < 1_000_000_000n) return `${sign}${trimFraction(n / 1_000_000n, n % 1_000_000n, 6)}ms`
  const hours = n / 3_600_000_000_000n
  const minutes = (n / 60_000_000_000n) % 60n
  const seconds = trimFraction((n / 1_000_000_000n) % 60n, n % 1_000_000_000n, 9)
  return `${sign}${hours > 0n ? `${hours}h${minutes}m` : minutes > 0n ? `${minutes}m` : ""}${seconds}s`
}

const expectWire = (field: WireField, wire: WireField["wire"], path: string): void => {
  if (field.wire !== wire) throw new WireError(`${path}: expected a ${wire} value, got ${field.wire}`)
}

const bytesOf = (field: WireField, path: string): Uint8Array => {
  if (field.wire !== "bytes") throw new WireError(`${path}: expected a length-delimited value, got ${field.wire}`)
  return field.value
}

const scalarOf = (type: string, field: WireField, path: string): unknown => {
  switch (type) {
    case "string":
      return utf8.decode(bytesOf(field, path))
    case "bytes":
      return Buffer.from(bytesOf(field, path)).toString("base64")
    case "double": {
      expectWire(field, "fixed64", path)
      const view = new DataView(new ArrayBuffer(8))
      view.setBigUint64(0, field.value as bigint, true)
      return view.getFloat64(0, true)
    }
    default: {
      expectWire(field, "varint", path)
      const v = field.value as bigint
      if (type === "bool") return v !== 0n
      if (type === "int32") return Number(BigInt.asIntN(32, v))
      if (type === "int64") return Number(BigInt.asIntN(64, v))
      return Number(type === "uint32" ? BigInt.asUintN(32, v) : v)
    }
  }
}

// The fields of a small special message by number (the last occurrence wins, as protobuf merges).
const byNumber = (bytes: Uint8Array): ReadonlyMap<number, WireField> => new Map(readFields(bytes).map((f) => [f.number, f]))

const specialOf = (tables: MessageTables, type: string, bytes: Uint8Array, path: string): unknown => {
  const f = byNumber(bytes)
  const int = (n: number, t: string): number => (f.has(n) ? (scalarOf(t, f.get(n) as WireField, path) as number) : 0)
  const str = (n: number): string => (f.has(n) ? (scalarOf("string", f.get(n) as WireField, path) as string) : "")
  const int64 = (n: number): bigint => {
    const field = f.get(n)
    if (field === undefined) return 0n
    expectWire(field, "varint", path)
    return BigInt.asIntN(64, field.value as bigint)
  }
  switch (type) {
    case "quantity":
      return str(1)
    case "time":
    case "microTime": {
      const seconds = int64(1)
      const nanos = int(2, "int32")
      if (seconds === 0n && nanos === 0) return undefined
      return rfc3339(seconds, nanos, type === "time" ? 0 : 6)
    }
    case "duration":
      return goDuration(int64(1))
    case "intOrString":
      return int(1, "int64") === 1 ? str(3) : int(2, "int32")
    case "raw":
    case "fieldsV1": {
      const raw = f.has(1) ? utf8.decode(bytesOf(f.get(1) as WireField, path)) : ""
      if (raw === "") return undefined
      try {
        return JSON.parse(raw) as unknown
      } catch {
        throw new WireError(`${path}: embedded raw object is not JSON`)
      }
    }
    case "stringList":
      return readFields(bytes).filter((x) => x.number === 1).map((x) => scalarOf("string", x, path))
    default:
      return decodeMessage(tables, type, bytes, path)
  }
}

const valueOf = (tables: MessageTables, type: string, field: WireField, path: string): unknown =>
  scalarTypes.has(type) ? scalarOf(type, field, path) : specialOf(tables, type, bytesOf(field, path), path)

// A map entry without its value holds the value type's zero, as Go's decoder leaves it.
const zeroOf = (tables: MessageTables, type: string): unknown => {
  if (type === "string" || type === "bytes") return ""
  if (type === "bool") return false
  if (scalarTypes.has(type)) return 0
  if (type === "quantity") return "0"
  return specialOf(tables, type, new Uint8Array(), "") ?? null
}

// Go's omitempty: empty strings, zeros, false, and empty lists and maps (never a struct).
const isEmpty = (value: unknown, spec: MessageField): boolean =>
  value === "" || value === 0 || value === false || (Array.isArray(value) && value.length === 0) ||
  (spec.map && typeof value === "object" && value !== null && Object.keys(value).length === 0)

const fieldPath = (path: string, json: string): string => (path === "" ? json : `${path}.${json}`)

/** Decodes one message by its table into its JSON form. Throws a WireError on malformed input. */
export const decodeMessage = (tables: MessageTables, name: string, bytes: Uint8Array, path = ""): Record<string, unknown> => {
  const table = tables.fields(name)
  if (table === undefined) throw new WireError(`${path === "" ? "the body" : path}: no table for ${name}`)
  const out: Record<string, unknown> = {}
  for (const field of readFields(bytes)) {
    // Fields a newer release added are skipped, as Go's generated unmarshalers skip unknown fields.
    const spec = table.get(field.number)
    if (spec === undefined) continue
    const at = fieldPath(path, spec.json)
    if (spec.map) {
      const entry = byNumber(bytesOf(field, at))
      const key = entry.has(1) ? (scalarOf("string", entry.get(1) as WireField, at) as string) : ""
      const value = entry.has(2) ? valueOf(tables, spec.type, entry.get(2) as WireField, `${at}[${key}]`) : zeroOf(tables, spec.type)
      const map = (out[spec.json] ??= {}) as Record<string, unknown>
      Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true })
    } else if (spec.repeated) {
      const list = (out[spec.json] ??= []) as Array<unknown>
      if (varintTypes.has(spec.type) && field.wire === "bytes") {
        for (const v of readPackedVarints(field.value)) list.push(scalarOf(spec.type, { number: field.number, wire: "varint", value: v }, at))
      } else {
        list.push(valueOf(tables, spec.type, field, `${at}[${list.length}]`))
      }
    } else if (spec.inline) {
      Object.assign(out, valueOf(tables, spec.type, field, path))
    } else {
      const value = valueOf(tables, spec.type, field, at)
      if (value === undefined) delete out[spec.json]
      else out[spec.json] = value
    }
  }
  // What Go's JSON encoding leaves out: zero values of non-pointer omitempty fields.
  for (const spec of table.values()) {
    if (!spec.inline && spec.omitempty && !spec.pointer && Object.hasOwn(out, spec.json) && isEmpty(out[spec.json], spec)) delete out[spec.json]
  }
  return out
}

/** The protobuf magic every Kubernetes protobuf body starts with. */
export const protobufMagic = Uint8Array.of(0x6b, 0x38, 0x73, 0x00)

/** True when a Content-Type header names Kubernetes' protobuf encoding. */
export const isProtobufBody = (contentType: string | undefined): boolean => isProtobufText(contentType ?? "")

// Module state that is a pure memo cache of constant input (header texts): every server may share it.
const isProtobufText = memoizeText((contentType: string): boolean => contentType.split(";")[0]?.trim().toLowerCase() === "application/vnd.kubernetes.protobuf")

/** A decoded body, or the answer to send instead. */
export type ProtobufDecoded = { readonly ok: true; readonly object: Record<string, unknown> } | { readonly ok: false; readonly response: ApiResponse }

const badRequest = (message: string): ProtobufDecoded => ({
  ok: false,
  response: { code: 400, body: statusBody(400, "BadRequest", `the request body could not be decoded: ${message}`) }
})

const unsupported = (what: string): ProtobufDecoded => ({
  ok: false,
  response: {
    code: 415,
    body: statusBody(
      415,
      "UnsupportedMediaType",
      `the body of the request was in an unknown format - ${what} is not accepted as application/vnd.kubernetes.protobuf; accepted media types include: application/json, application/yaml`
    )
  }
})

/** Decodes a protobuf request body (magic, runtime.Unknown envelope, typed message) into its JSON object. */
export const decodeProtobufBody = (tables: MessageTables, bytes: Uint8Array): ProtobufDecoded => {
  if (bytes.length < 4 || protobufMagic.some((b, i) => bytes[i] !== b)) return badRequest("the protobuf body does not start with the k8s\\0 magic")
  try {
    const envelope = byNumber(bytes.subarray(4))
    const typeMeta = envelope.has(1) ? byNumber(bytesOf(envelope.get(1) as WireField, "typeMeta")) : new Map<number, WireField>()
    const text = (f: ReadonlyMap<number, WireField>, n: number, path: string): string =>
      f.has(n) ? (scalarOf("string", f.get(n) as WireField, path) as string) : ""
    const apiVersion = text(typeMeta, 1, "typeMeta.apiVersion")
    const kind = text(typeMeta, 2, "typeMeta.kind")
    const encoding = text(envelope, 3, "contentEncoding")
    if (encoding !== "") return unsupported(`content encoding "${encoding}"`)
    const group = apiVersion.includes("/") ? (apiVersion.split("/")[0] ?? "") : ""
    const message = kind === "DeleteOptions" ? "meta.v1.DeleteOptions" : tables.kinds.find((k) => k.group === group && k.kind === kind)?.message
    const gvk = `${group === "" ? "" : `${group}/`}${apiVersion.split("/").pop() ?? ""}, Kind=${kind}`
    if (message === undefined) return unsupported(`${gvk}`)
    const raw = envelope.has(2) ? bytesOf(envelope.get(2) as WireField, "raw") : new Uint8Array()
    return { ok: true, object: { apiVersion, kind, ...decodeMessage(tables, message, raw) } }
  } catch (error) {
    if (error instanceof WireError) return badRequest(error.message)
    throw error
  }
}
