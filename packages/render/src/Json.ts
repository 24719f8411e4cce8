/** A JSON value as it travels to and from the API server. */
export type JsonValue = null | boolean | number | string | ReadonlyArray<JsonValue> | { readonly [key: string]: JsonValue }

/** A Kubernetes object as plain JSON data. */
export type KubeObject = { readonly [key: string]: JsonValue }

/** True for a plain object (not an array, not null). */
export const isRecord = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const isPlainProto = (o: object): boolean => {
  const proto = Object.getPrototypeOf(o)
  return proto === Object.prototype || proto === null
}

/** Sets an own property, as JSON.parse does: a "__proto__" key arriving in JSON cannot hijack the prototype. */
export const putOwn = (target: Record<string, unknown>, key: string, value: unknown): void => {
  if (key === "__proto__") Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  else target[key] = value
}

// What shellOf answers for a node that is not JSON data.
const notJson: unique symbol = Symbol("not JSON")

// The copy of one node: a scalar as it is, an object or an array as an empty one of its kind (filled when
// its turn comes), or notJson: a non-finite number, undefined, a function, a class instance, a node met before.
const shellOf = (source: unknown, seen: Set<object>): unknown => {
  if (source === null || typeof source === "boolean" || typeof source === "string") return source
  if (typeof source === "number") return Number.isFinite(source) ? source : notJson
  if (typeof source !== "object" || seen.has(source)) return notJson
  if (Array.isArray(source)) {
    seen.add(source)
    return new Array<unknown>(source.length)
  }
  if (!isPlainProto(source)) return notJson
  seen.add(source)
  return {}
}

/**
 * Copies plain JSON data, keeping key order; undefined when the input is not a JSON tree (cycles,
 * shared nodes, non-finite numbers, functions, class instances). Iterative, so depth cannot overflow;
 * each node is placed in its parent's copy as it is met, so key order needs no second pass.
 */
export const cloneJson = (input: unknown): JsonValue | undefined => {
  const seen = new Set<object>()
  const root = shellOf(input, seen)
  if (root === notJson) return undefined
  // Pairs of a source object or array and its copy, not yet filled.
  const pending: Array<unknown> = typeof root === "object" && root !== null ? [input, root] : []
  while (pending.length > 0) {
    const into = pending.pop()
    const source = pending.pop()
    if (Array.isArray(source)) {
      for (let i = 0; i < source.length; i++) {
        const child = shellOf(source[i], seen)
        if (child === notJson) return undefined
        ;(into as Array<unknown>)[i] = child
        if (typeof child === "object" && child !== null) pending.push(source[i], child)
      }
    } else {
      for (const key of Object.keys(source as object)) {
        const value = (source as Record<string, unknown>)[key]
        const child = shellOf(value, seen)
        if (child === notJson) return undefined
        putOwn(into as Record<string, unknown>, key, child)
        if (typeof child === "object" && child !== null) pending.push(value, child)
      }
    }
  }
  return root as JsonValue
}

/** Whether cloneJson would copy `input` (it is a JSON tree), answered without copying it: the runtime
 * rules ask this of a runtime's spec twice per Start, and only render keeps a copy. */
export const isJsonTree = (input: unknown): boolean => {
  const seen = new Set<object>()
  const pending: Array<unknown> = [input]
  while (pending.length > 0) {
    const node = pending.pop()
    if (node === null || typeof node === "boolean" || typeof node === "string") continue
    if (typeof node === "number") {
      if (!Number.isFinite(node)) return false
      continue
    }
    // A node met before is shared or a cycle: not a tree, as shellOf says.
    if (typeof node !== "object" || seen.has(node)) return false
    seen.add(node)
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) pending.push(node[i])
    } else {
      if (!isPlainProto(node)) return false
      for (const key of Object.keys(node)) pending.push((node as Record<string, unknown>)[key])
    }
  }
  return true
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
