// A pure function of a header's text, remembered: a client sends the same few Content-Type and Accept
// values on every call, so each is parsed once rather than on every request. Bounded, as a client may
// send any number of distinct values. Only for functions whose answers are immutable (shared by callers).

/** `read`, remembering its answer for the last distinct texts (up to `capacity`). */
export const memoizeText = <A>(read: (text: string) => A, capacity = 256): ((text: string) => A) => {
  const known = new Map<string, A>()
  return (text) => {
    const hit = known.get(text)
    if (hit !== undefined || known.has(text)) return hit as A
    if (known.size >= capacity) known.clear()
    const answer = read(text)
    known.set(text, answer)
    return answer
  }
}
