// Kubernetes stamps times as RFC 3339 with whole seconds (metav1.Time); conditions and patches follow.

// The clock stands still between steps while many objects are stamped: the last answer is kept.
// Module state that is a pure memo cache of constant input (a whole second's text): every simulator may share it.
let last: { readonly second: number; readonly text: string } = { second: Number.NaN, text: "" }

/** Formats milliseconds since the epoch as a Kubernetes timestamp (whole seconds, UTC). */
export const formatTimestamp = (ms: number): string => {
  const second = Math.floor(ms / 1000)
  if (second !== last.second) last = { second, text: new Date(second * 1000).toISOString().replace(".000Z", "Z") }
  return last.text
}

/** Parses a Kubernetes timestamp to milliseconds since the epoch, or undefined when it is not one. */
export const parseTimestamp = (text: string | undefined): number | undefined => {
  if (text === undefined) return undefined
  const ms = Date.parse(text)
  return Number.isNaN(ms) ? undefined : ms
}
