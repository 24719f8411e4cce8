// Reasons quote what the caller sent; a bounded preview keeps a 1 MB string or a deep tree out of them.

const MAX_CHARS = 64

/** A short, printable rendering of any value for use inside a reason. */
export const preview = (u: unknown): string => {
  if (typeof u === "string") {
    const shown = u.length > MAX_CHARS ? `${JSON.stringify(u.slice(0, MAX_CHARS))}... (${u.length} characters)` : JSON.stringify(u)
    return shown
  }
  if (typeof u === "number" || typeof u === "boolean" || u === null) return String(u)
  if (u === undefined) return "nothing"
  if (Array.isArray(u)) return `an array of ${u.length}`
  if (typeof u === "object") return "an object"
  return `a ${typeof u}`
}
