// What a request body must be before it is parsed: JSON by its Content-Type, and nested no deeper than the
// service reads. Both are checked on the text, so no recursive step (parse, size check, decode) ever sees a body
// that could exhaust the stack.

/** The deepest nesting of arrays and objects a request body may have; Dioptra's bodies need fewer than 10. */
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

/** True when a Content-Type header names JSON (`application/json` or a `+json` type, any parameters); an absent
 * header is taken as JSON, as curl and older clients send none. */
export const isJsonContentType = (header: string | undefined): boolean => {
  if (header === undefined || header.trim() === "") return true
  const mediaType = header.split(";")[0]?.trim().toLowerCase() ?? ""
  return mediaType === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType)
}
