// How a campaign reports: a violation list readable at a glance, the schedule as JSON to replay, and the cost.
import { invariantNames, type Violation } from "./Invariants.ts"
import type { Schedule } from "./Schedule.ts"

/** Every violation, grouped under the invariant it breaks. */
export const describeViolations = (found: ReadonlyArray<Violation>): string => {
  const lines: Array<string> = []
  for (const invariant of [...new Set(found.map((v) => v.invariant))].sort()) {
    lines.push(`invariant ${invariant} (${invariantNames[invariant]}):`)
    for (const v of found.filter((f) => f.invariant === invariant)) lines.push(`  - ${v.detail}`)
  }
  return lines.join("\n")
}

/** A failing schedule, with how to replay it as a test. */
export const replayInstructions = (schedule: Schedule, found: ReadonlyArray<Violation>): string =>
  [
    describeViolations(found),
    "schedule (replay it with `replay(name, schedule)` from packages/server/test/campaign/Replay.ts):",
    JSON.stringify(schedule)
  ].join("\n")

/** Median, 95th percentile and mean of real ms per schedule. */
export const costSummary = (costs: ReadonlyArray<number>): string => {
  if (costs.length === 0) return "no schedules ran"
  const sorted = [...costs].sort((a, b) => a - b)
  const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0)
  const mean = Math.round(costs.reduce((a, b) => a + b, 0) / costs.length)
  return `${costs.length} schedules: median ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${Math.round(sorted.at(-1) ?? 0)} ms, mean ${mean} ms`
}

/** Where a run's schedules spent their time: the mean real ms of each part, and the mean settle rounds. */
export const phaseSummary = (results: ReadonlyArray<{ readonly rounds: number; readonly phases: Readonly<Record<string, number>> }>): string => {
  if (results.length === 0) return "no schedules ran"
  const mean = (of: (r: (typeof results)[number]) => number) => results.reduce((sum, r) => sum + of(r), 0) / results.length
  const parts = Object.keys(results[0]?.phases ?? {}).map((name) => `${name} ${Math.round(mean((r) => r.phases[name] ?? 0))} ms`)
  return `mean ${parts.join(", ")}; ${mean((r) => r.rounds).toFixed(1)} settle rounds`
}
