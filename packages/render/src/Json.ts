/** A JSON value as it travels to and from the API server. */
export type JsonValue = null | boolean | number | string | ReadonlyArray<JsonValue> | { readonly [key: string]: JsonValue }

/** A Kubernetes object as plain JSON data. */
export type KubeObject = { readonly [key: string]: JsonValue }

/** True for a plain object (not an array, not null). */
export const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

/** Reads a nested field of unknown data; undefined when any step is missing or not an object. */
export const pathOf = (u: unknown, path: ReadonlyArray<string>): unknown => {
  let at: unknown = u
  for (const key of path) {
    if (!isRecord(at) || !Object.hasOwn(at, key)) return undefined
    at = at[key]
  }
  return at
}

const isPlainProto = (o: object): boolean => {
  const proto = Object.getPrototypeOf(o)
  return proto === Object.prototype || proto === null
}

/** Sets an own property, as JSON.parse does: a "__proto__" key arriving in JSON cannot hijack the prototype. */
export const putOwn = (target: Record<string, unknown>, key: string, value: unknown): void => {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  else target[key] = value
}

/**
 * Copies plain JSON data, keeping key order; undefined when the input is not a JSON tree (cycles,
 * shared nodes, non-finite numbers, functions, class instances). Iterative, so depth cannot overflow.
 */
export const cloneJson = (input: unknown): JsonValue | undefined => {
  const seen = new Set<object>()
  const root: { value?: unknown } = {}
  const stack: Array<{ source: unknown; assign: (v: unknown) => void }> = [{ source: input, assign: (v) => { root.value = v } }]
  while (stack.length > 0) {
    const { source, assign } = stack.pop()!
    if (source === null || typeof source === "boolean" || typeof source === "string") assign(source)
    else if (typeof source === "number") {
      if (!Number.isFinite(source)) return undefined
      assign(source)
    } else if (Array.isArray(source)) {
      if (seen.has(source)) return undefined
      seen.add(source)
      const out: Array<unknown> = new Array(source.length)
      assign(out)
      for (let i = 0; i < source.length; i++) stack.push({ source: source[i], assign: (v) => { out[i] = v } })
    } else if (typeof source === "object" && isPlainProto(source)) {
      if (seen.has(source)) return undefined
      seen.add(source)
      const out: Record<string, unknown> = {}
      assign(out)
      for (const key of Object.keys(source)) {
        putOwn(out, key, undefined)
        stack.push({ source: (source as Record<string, unknown>)[key], assign: (v) => putOwn(out, key, v) })
      }
    } else return undefined
  }
  return root.value as JsonValue
}

/**
 * Deep equality of JSON data; key order does not matter. Iterative; input that is not a tree (a node
 * reached twice) compares unequal rather than looping.
 */
export const jsonEqual = (a: unknown, b: unknown): boolean => {
  const seen = new Set<object>()
  const stack: Array<readonly [unknown, unknown]> = [[a, b]]
  while (stack.length > 0) {
    const [x, y] = stack.pop()!
    if (x === y) continue
    if (typeof x !== "object" || typeof y !== "object" || x === null || y === null) return false
    if (seen.has(x)) return false
    seen.add(x)
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false
      for (let i = 0; i < x.length; i++) stack.push([x[i], y[i]])
    } else {
      if (Array.isArray(y)) return false
      const xKeys = Object.keys(x)
      const yRecord = y as Record<string, unknown>
      if (xKeys.length !== Object.keys(y).length) return false
      for (const key of xKeys) {
        if (!Object.hasOwn(y, key)) return false
        stack.push([(x as Record<string, unknown>)[key], yRecord[key]])
      }
    }
  }
  return true
}
