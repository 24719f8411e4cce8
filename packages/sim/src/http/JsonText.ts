// The JSON text of an answer, with the text of its deeply frozen parts kept: a stored object's parts
// never change and are shared from one revision to the next (the spec a status write keeps, the
// runtime every Start reads), so they are serialised once rather than on every answer that carries
// them. Keyed by the frozen value itself, so a kept text can never be stale.
import { isDeeplyFrozen } from "../apiserver/store/JsonValue.ts"

// Module state that is a pure memo cache of constant input (frozen parts): every server may share it.
const texts = new WeakMap<object, string>()

// How many levels of new containers (an answer's top level, a presented copy's, a list's items) are
// composed member by member to reach the frozen parts below; deeper, a value is serialised whole.
const composedLevels = 3

/** `JSON.stringify(body)`, the same text, with frozen parts' text kept from one answer to the next. */
export const jsonText = (body: unknown): string => (typeof body === "object" && body !== null ? textOf(body, 0) : JSON.stringify(body))

const frozenText = (value: object): string => {
  const known = texts.get(value)
  if (known !== undefined) return known
  const text = JSON.stringify(value)
  texts.set(value, text)
  return text
}

// A plain object or array, which JSON.stringify writes member by member (no toJSON, no other prototype).
const isPlain = (value: object): boolean => {
  const prototype = Object.getPrototypeOf(value) as unknown
  return Array.isArray(value) ? prototype === Array.prototype : (prototype === Object.prototype || prototype === null) && !("toJSON" in value)
}

const textOf = (value: object, level: number): string => {
  if (isDeeplyFrozen(value)) return frozenText(value)
  if (level >= composedLevels || !isPlain(value)) return JSON.stringify(value)
  if (Array.isArray(value)) {
    let out = "["
    for (let i = 0; i < value.length; i++) out += (i === 0 ? "" : ",") + memberText(value[i] as unknown, level + 1, "null")
    return `${out}]`
  }
  let out = "{"
  let first = true
  for (const key of Object.keys(value)) {
    const text = memberText((value as Record<string, unknown>)[key], level + 1, undefined)
    if (text === undefined) continue
    out += `${first ? "" : ","}${JSON.stringify(key)}:${text}`
    first = false
  }
  return `${out}}`
}

// A member's text; what JSON.stringify leaves out of an object (undefined, a function, a symbol) is
// `absent`, which an array writes as null.
const memberText = <A extends string | undefined>(value: unknown, level: number, absent: A): string | A => {
  if (typeof value === "object" && value !== null) return textOf(value, level)
  if (value === undefined || typeof value === "function" || typeof value === "symbol") return absent
  return JSON.stringify(value)
}
