// Kubernetes stamps times as RFC 3339 with whole seconds (metav1.Time); conditions and patches follow.

/** Formats milliseconds since the epoch as a Kubernetes timestamp (whole seconds, UTC). */
export const formatTimestamp = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z")

/** Parses a Kubernetes timestamp to milliseconds since the epoch, or undefined when it is not one. */
export const parseTimestamp = (text: string | undefined): number | undefined => {
  if (text === undefined) return undefined
  const ms = Date.parse(text)
  return Number.isNaN(ms) ? undefined : ms
}
