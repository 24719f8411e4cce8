// JSON merge patch (RFC 7386): objects merge key by key, null removes a key, anything else replaces.
import { isJsonObject, setOwn } from "../store/JsonValue.ts"

/** Applies a JSON merge patch to a value, returning the new value (the input is not changed). */
export const mergePatch = (target: unknown, patch: unknown): unknown => {
  if (!isJsonObject(patch)) return patch
  const out: Record<string, unknown> = isJsonObject(target) ? { ...target } : {}
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key]
    else setOwn(out, key, mergePatch(Object.hasOwn(out, key) ? out[key] : undefined, value))
  }
  return out
}
