// What a request body must be before it is parsed: JSON by its Content-Type, and nested no deeper than the
// service reads (`jsonDepth`, shared with the values that parameter types parse). Both are checked on the text, so
// no recursive step (parse, size check, decode) ever sees a body that could exhaust the stack.

export { jsonDepth, maxJsonDepth } from "@dispatch/jobs"

/** True when a Content-Type header names JSON (`application/json` or a `+json` type, any parameters); an absent
 * header is taken as JSON, as curl and older clients send none. */
export const isJsonContentType = (header: string | undefined): boolean => {
  if (header === undefined || header.trim() === "") return true
  const mediaType = header.split(";")[0]?.trim().toLowerCase() ?? ""
  return mediaType === "application/json" || /^application\/[a-z0-9.+-]+\+json$/.test(mediaType)
}
