// Durations as kubectl's flags spell them (`--timeout 30s`): the CLI's flags and the job service's settings read them. Pure.

/** A duration as kubectl spells it: `90s`, `2m`, `1h`, `500ms`, or a whole number of seconds; in milliseconds. */
export const parseDuration = (text: string): number | undefined => {
  const match = /^(\d{1,9})(ms|s|m|h)?$/.exec(text)
  if (match === null) return undefined
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? "s") as "ms" | "s" | "m" | "h"]
  return Number(match[1]) * unit
}
