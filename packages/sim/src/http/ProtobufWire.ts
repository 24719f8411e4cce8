// The protobuf wire format at its smallest: a message is a run of (field number, wire type, value)
// records. Reading it needs no schema; what the values mean is the message tables' business.

/** One field record: a varint or fixed value as an unsigned bigint, or the bytes of a length-delimited one. */
export type WireField =
  | { readonly number: number; readonly wire: "varint" | "fixed64" | "fixed32"; readonly value: bigint }
  | { readonly number: number; readonly wire: "bytes"; readonly value: Uint8Array }

/** Why a message could not be read. */
export class WireError extends Error {
  readonly _tag = "WireError"
}

const readVarint = (bytes: Uint8Array, start: number): { readonly value: bigint; readonly next: number } => {
  let value = 0n
  let shift = 0n
  for (let i = start; i < bytes.length && i < start + 10; i++) {
    const byte = bytes[i] ?? 0
    value |= BigInt(byte & 0x7f) << shift
    if ((byte & 0x80) === 0) return { value: BigInt.asUintN(64, value), next: i + 1 }
    shift += 7n
  }
  throw new WireError(`truncated or overlong varint at byte ${start}`)
}

const readFixed = (bytes: Uint8Array, start: number, size: number): bigint => {
  if (start + size > bytes.length) throw new WireError(`truncated ${size * 8}-bit value at byte ${start}`)
  let value = 0n
  for (let i = size - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[start + i] ?? 0)
  return value
}

/** Every field record of a message, in order. Throws a WireError on malformed input. */
export const readFields = (bytes: Uint8Array): ReadonlyArray<WireField> => {
  const fields: Array<WireField> = []
  let at = 0
  while (at < bytes.length) {
    const key = readVarint(bytes, at)
    at = key.next
    const number = Number(key.value >> 3n)
    if (number < 1 || number > 536_870_911) throw new WireError(`field number ${number} is out of range`)
    switch (Number(key.value & 7n)) {
      case 0: {
        const v = readVarint(bytes, at)
        fields.push({ number, wire: "varint", value: v.value })
        at = v.next
        break
      }
      case 1:
        fields.push({ number, wire: "fixed64", value: readFixed(bytes, at, 8) })
        at += 8
        break
      case 2: {
        const length = readVarint(bytes, at)
        const end = length.next + Number(length.value)
        if (length.value > BigInt(bytes.length) || end > bytes.length) throw new WireError(`field ${number}: length ${length.value} runs past the end of the message`)
        fields.push({ number, wire: "bytes", value: bytes.subarray(length.next, end) })
        at = end
        break
      }
      case 5:
        fields.push({ number, wire: "fixed32", value: readFixed(bytes, at, 4) })
        at += 4
        break
      default:
        throw new WireError(`field ${number}: unsupported wire type ${Number(key.value & 7n)}`)
    }
  }
  return fields
}

/** The unsigned varints packed in a length-delimited field (a packed repeated scalar). */
export const readPackedVarints = (bytes: Uint8Array): ReadonlyArray<bigint> => {
  const values: Array<bigint> = []
  let at = 0
  while (at < bytes.length) {
    const v = readVarint(bytes, at)
    values.push(v.value)
    at = v.next
  }
  return values
}
