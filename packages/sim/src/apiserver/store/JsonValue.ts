// JSON values as the store holds them: plain objects, arrays and scalars, compared and copied
// structurally.

/** A JSON object. */
export type JsonObject = Record<string, unknown>

/** True for a plain (non-array, non-null) object. */
export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Structural equality of two JSON values (key order ignored). */
export const jsonEqual = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => jsonEqual(x, b[i]))
  }
  if (isJsonObject(a) && isJsonObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined)
    const kb = Object.keys(b).filter((k) => b[k] !== undefined)
    return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]))
  }
  return false
}

/**
 * Freezes a JSON value deeply and returns it; frozen parts are not entered again, so freezing a new
 * version that shares structure with a frozen one costs only what is new.
 */
export const freezeJson = <A>(value: A): A => {
  if (typeof value === "object" && value !== null) freezeMeasured(value)
  return value
}

/**
 * Freezes every part of an object (not the object itself, which a writer may still replace at the top)
 * and returns an upper bound of the UTF-8 length of the object's JSON, from the bounds its frozen parts
 * carry: the store's size limit needs the exact length only when this bound is over it.
 */
export const freezeParts = (object: Readonly<Record<string, unknown>>): number => {
  let bound = 2
  for (const key of Object.keys(object)) bound += memberBound(key, object[key])
  return bound
}

// A UTF-16 unit is at most 6 bytes of JSON in UTF-8 (an escape such as \u001f; a character that is
// written as it is takes at most 3), so a string's JSON is at most 6 bytes per unit and its quotes.
const stringBound = (text: string): number => 6 * text.length + 2

// The longest JSON number is 24 characters ("-1.2345678901234567e-308"); true, false and null are shorter.
const valueBound = (value: unknown): number =>
  typeof value === "string" ? stringBound(value) : typeof value === "object" && value !== null ? freezeMeasured(value) : 24

// A member's key, colon, value and comma.
const memberBound = (key: string, value: unknown): number => stringBound(key) + 2 + valueBound(value)

// Freezes an object or array deeply; its JSON's bound (see freezeParts), which the mark keeps.
const freezeMeasured = (value: object): number => {
  const known = Object.isExtensible(value) ? undefined : FrozenMark.boundOf(value)
  if (known !== undefined) return known
  let bound = 2
  if (Array.isArray(value)) for (const item of value as ReadonlyArray<unknown>) bound += valueBound(item) + 1
  else for (const key of Object.keys(value)) bound += memberBound(key, (value as Record<string, unknown>)[key])
  // Its children are frozen by now; it is marked, then frozen at once, so a marked value that is not
  // extensible is frozen all the way down.
  FrozenMark.mark(value, bound)
  Object.freeze(value)
  return bound
}

// A class whose constructor returns the object it is handed, so that a subclass's private field is
// added to that object as V8 adds any field.
class Adopting {
  constructor(object: object) {
    return object as Adopting
  }
}

// The rare value frozen (or sealed) before freezeJson saw it.
// Module state that is a pure memo cache of constant input (frozen values): every simulator may share it.
const frozenElsewhere = new WeakMap<object, number>()

// What freezeJson froze, all the way down, carries this mark: a private field, which no key list,
// spread, copy or JSON sees, holding the bound of the part's JSON length. Object.isFrozen would not do:
// it says nothing of the children. A WeakSet of every frozen part would, but with a large store it holds
// millions of entries, and its lookups and the garbage collector's work on it cost more than the rest of
// a write; a symbol property costs twice what this does to add.
class FrozenMark extends Adopting {
  readonly #bound: number

  private constructor(object: object, bound: number) {
    super(object)
    this.#bound = bound
  }

  static mark(object: object, bound: number): void {
    // A value someone else froze first: the engines of today add a private field to it, but a TC39
    // proposal would have them refuse, so such a value keeps its bound aside instead.
    if (Object.isExtensible(object)) new FrozenMark(object, bound)
    else frozenElsewhere.set(object, bound)
  }

  static boundOf(object: object): number | undefined {
    return #bound in object ? (object as FrozenMark).#bound : frozenElsewhere.get(object)
  }
}

/** True for an object or array freezeJson froze: nothing in it can ever change. */
export const isDeeplyFrozen = (value: unknown): boolean =>
  typeof value === "object" &&
  value !== null &&
  // Most values asked about are new and extensible: that answers first, before a field lookup that misses.
  !Object.isExtensible(value) &&
  FrozenMark.boundOf(value) !== undefined

/**
 * True when `object` holds `part` as the very frozen value `before` holds (the stored object, or one that
 * passed checks): whatever `before`'s part passed, this one passes, since it cannot have changed since.
 */
export const keepsFrozenPart = (object: Record<string, unknown>, before: Record<string, unknown> | undefined, part: string): boolean =>
  before !== undefined && object[part] === before[part] && isDeeplyFrozen(object[part])

/** A copy of a JSON value that shares only its deeply frozen parts (stored objects, which nothing can
 * change): for a body about to be stored, as safe as a deep copy at a fraction of the cost when the body is
 * mostly a stored object, as a controller's status update is. */
export const jsonCopyUnfrozen = <A>(value: A): A => cloneValue(value, true) as A

/** A deep copy of a JSON value. */
export const jsonClone = <A>(value: A): A => cloneValue(value, false) as A

/** A deep copy of a JSON value that shares, wherever an object holds `key`, that key's value when it is
 * deeply frozen (nothing can change it, so only a caller that must edit it needs its own). */
export const jsonCloneSharing = <A>(value: A, key: string): A => cloneValue(value, false, key) as A

// By hand rather than structuredClone: for the small objects the store holds this is several times
// faster, and every answer the server gives is a copy.
const cloneValue = (value: unknown, shareFrozen: boolean, sharedKey?: string): unknown => {
  if (typeof value !== "object" || value === null || (shareFrozen && isDeeplyFrozen(value))) return value
  if (Array.isArray(value)) return value.map((item) => cloneValue(item, shareFrozen, sharedKey))
  const copy: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    const original = (value as Record<string, unknown>)[key]
    putOwn(copy, key, key === sharedKey && isDeeplyFrozen(original) ? original : cloneValue(original, shareFrozen, sharedKey))
  }
  return copy
}

/** The value at a path of object keys (Kubernetes' object reading, one definition for every package). */
export { valueAt } from "@dispatch/kube"

/** Sets an own property, even one named `__proto__` (plain assignment would change the prototype). */
export const setOwn = (object: Record<string, unknown>, key: string, value: unknown): void => {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true })
}

/** A shallow copy of an object without one key, by a loop: V8's object rest (`{ [key]: _, ...rest }`) costs several times more, and writes run this. */
export const withoutKey = (object: Readonly<Record<string, unknown>>, without: string): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(object)) if (key !== without) putOwn(out, key, object[key])
  return out
}

/** As setOwn, but by plain assignment for every other key: several times cheaper, for the loops that copy objects key by key. */
export const putOwn = (object: Record<string, unknown>, key: string, value: unknown): void => {
  if (key === "__proto__") setOwn(object, key, value)
  else object[key] = value
}
