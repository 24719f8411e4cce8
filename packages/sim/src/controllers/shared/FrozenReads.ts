// Reads of the store's frozen parts, each made once: the store never changes a part it froze (a new
// version of an object shares the parts it kept and has new ones where it changed), so the same frozen
// object always reads the same, and what was read about it goes when it does. Anything not frozen (a
// copy handed to a client, a value being built) is read afresh every time.

/** `read`, remembered per frozen object or array it is given. */
export const readOnce = <A>(read: (value: unknown) => A): ((value: unknown) => A) => {
  const known = new WeakMap<object, A>()
  return (value) => {
    if (typeof value !== "object" || value === null || !Object.isFrozen(value)) return read(value)
    // One lookup on a hit: a look asks the same few parts many times, and most answers are objects.
    const hit = known.get(value)
    if (hit !== undefined || known.has(value)) return hit as A
    const result = read(value)
    known.set(value, result)
    return result
  }
}
