// How deep a JSON text nests, read on the text itself: the parsers are iterative, but every walk of a parsed value
// (JSON.stringify, a schema, a YAML writer) recurses, so a value nested thousands deep exhausts the stack of
// whatever reads it next. Counting on the text finds such a value before anything parses, stores or renders it.

/** The deepest nesting of arrays and objects a request body, or a JSON value inside one of its strings, may have;
 * Dioptra's bodies and values need fewer than 10. */
export const maxJsonDepth = 64

/** The deepest nesting of `[`/`{` in a JSON text, brackets inside strings not counted; stops counting past `limit`. */
export const jsonDepth = (text: string, limit = Number.POSITIVE_INFINITY): number => {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++ // backslash: the next character is escaped
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 91 || c === 123) {
      depth++
      if (depth > deepest) deepest = depth
      if (deepest > limit) return deepest
    } else if (c === 93 || c === 125) depth--
  }
  return deepest
}

/** The deepest nesting of arrays and objects in a parsed value, walked with a stack of its own (so never the call
 * stack); stops past `limit`, so a cycle (YAML aliases can make one) or a hostile depth costs at most `limit` levels. */
export const valueNesting = (value: unknown, limit = Number.POSITIVE_INFINITY): number => {
  const pending: Array<readonly [unknown, number]> = [[value, 0]]
  let deepest = 0
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [item, depth] = next
    if (typeof item !== "object" || item === null) continue
    const inner = depth + 1
    if (inner > deepest) deepest = inner
    if (deepest > limit) return deepest
    for (const child of Array.isArray(item) ? item : Object.values(item)) pending.push([child, inner])
  }
  return deepest
}
