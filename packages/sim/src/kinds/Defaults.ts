// Filling in defaults as a CRD schema's `default`s do: the defaults' keys first, then the value's own (a
// key of both keeps the defaults' place), as `{ ...defaults, ...value }` orders them; built by a loop,
// as every write of a defaulted kind runs this.
import { isJsonObject, putOwn } from "../apiserver/store/JsonValue.ts"

/** The value with `defaults` filled in where it has no value of its own (anything but an object is kept as it is). */
export const withDefaults = (value: unknown, defaults: Readonly<Record<string, unknown>>): unknown => {
  if (!isJsonObject(value)) return value
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(defaults)) out[key] = defaults[key]
  for (const key of Object.keys(value)) if (value[key] !== undefined) putOwn(out, key, value[key])
  return out
}
