// The other direction of the simulator's protobuf bodies, for tests: a JSON object encoded by the same
// message tables into the bytes kubectl's typed clients send (magic, runtime.Unknown envelope, message).
import { type MessageField, protobufMagic } from "../src/http/ProtobufBody.ts"
import { builtinTables } from "./BuiltinKinds.ts"

const varint = (value: bigint): Array<number> => {
  let v = BigInt.asUintN(64, value)
  const out: Array<number> = []
  do {
    const low = Number(v & 0x7fn)
    v >>= 7n
    out.push(v === 0n ? low : low | 0x80)
  } while (v !== 0n)
  return out
}

const key = (number: number, wire: number): Array<number> => varint(BigInt((number << 3) | wire))

const lengthDelimited = (number: number, bytes: Uint8Array | ReadonlyArray<number>): Array<number> => [...key(number, 2), ...varint(BigInt(bytes.length)), ...bytes]

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text)

const timeMessage = (text: string): Array<number> => {
  const millis = Date.parse(text)
  const fraction = /\.(\d+)Z$/.exec(text)?.[1] ?? ""
  const nanos = Number(fraction.padEnd(9, "0").slice(0, 9))
  return [...key(1, 0), ...varint(BigInt(Math.floor(millis / 1000))), ...(nanos === 0 ? [] : [...key(2, 0), ...varint(BigInt(nanos))])]
}

const encodeValue = (number: number, type: string, value: unknown): Array<number> => {
  switch (type) {
    case "string":
      return lengthDelimited(number, utf8(value as string))
    case "bytes":
      return lengthDelimited(number, Buffer.from(value as string, "base64"))
    case "bool":
      return [...key(number, 0), value === true ? 1 : 0]
    case "int32":
    case "int64":
    case "uint32":
    case "uint64":
      return [...key(number, 0), ...varint(BigInt(value as number))]
    case "double": {
      const view = new DataView(new ArrayBuffer(8))
      view.setFloat64(0, value as number, true)
      return [...key(number, 1), ...new Uint8Array(view.buffer)]
    }
    case "quantity":
      return lengthDelimited(number, lengthDelimited(1, utf8(value as string)))
    case "time":
    case "microTime":
      return lengthDelimited(number, timeMessage(value as string))
    case "intOrString":
      return lengthDelimited(
        number,
        typeof value === "number" ? [...key(1, 0), 0, ...key(2, 0), ...varint(BigInt(value))] : [...key(1, 0), 1, ...lengthDelimited(3, utf8(value as string))]
      )
    case "raw":
    case "fieldsV1":
      return lengthDelimited(number, lengthDelimited(1, utf8(JSON.stringify(value))))
    case "stringList":
      return lengthDelimited(number, (value as ReadonlyArray<string>).flatMap((s) => lengthDelimited(1, utf8(s))))
    default:
      return lengthDelimited(number, encodeMessage(type, value as Record<string, unknown>))
  }
}

const encodeField = (number: number, spec: MessageField, object: Record<string, unknown>): Array<number> => {
  if (spec.inline) return encodeValue(number, spec.type, object)
  const value = object[spec.json]
  if (value === undefined) return []
  if (spec.map) {
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) =>
      lengthDelimited(number, [...lengthDelimited(1, utf8(k)), ...encodeValue(2, spec.type, v)])
    )
  }
  if (spec.repeated) return (value as ReadonlyArray<unknown>).flatMap((item) => encodeValue(number, spec.type, item))
  return encodeValue(number, spec.type, value)
}

/** The protobuf message of a JSON object, by the named message's table. */
export const encodeMessage = (name: string, object: Record<string, unknown>): Array<number> => {
  const table = builtinTables.fields(name)
  if (table === undefined) throw new Error(`no table for ${name}`)
  return [...table.entries()].sort(([a], [b]) => a - b).flatMap(([number, spec]) => encodeField(number, spec, object))
}

/** A whole protobuf request body: magic, envelope naming apiVersion and kind, and the encoded message. */
export const protobufBody = (apiVersion: string, kind: string, message: string, object: Record<string, unknown>): Uint8Array => {
  const typeMeta = [...lengthDelimited(1, utf8(apiVersion)), ...lengthDelimited(2, utf8(kind))]
  const { apiVersion: _a, kind: _k, ...rest } = object
  return Uint8Array.from([...protobufMagic, ...lengthDelimited(1, typeMeta), ...lengthDelimited(2, encodeMessage(message, rest)), ...lengthDelimited(3, []), ...lengthDelimited(4, [])])
}
