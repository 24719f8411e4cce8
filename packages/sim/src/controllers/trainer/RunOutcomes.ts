// How a simulated run ends: the user's script decides per TrainJob; otherwise it completes after the
// configured run time.
import type { KubeObject } from "../../Api.ts"
import { labelsOf, nameOf } from "../shared/KubeFields.ts"
import type { OutcomeRule, OutcomeScript, RunOutcome } from "../Options.ts"

/** Run time used when neither options nor script give one. */
export const defaultRunTimeMs = 5_000

const matches = (rule: OutcomeRule, job: KubeObject): boolean => {
  if (rule.name !== undefined && rule.name !== nameOf(job)) return false
  const labels = labelsOf(job)
  return Object.entries(rule.labels ?? {}).every(([key, value]) => labels[key] === value)
}

/** The outcome of `job`'s run under `script`, defaulting to Complete after `runTimeMs`. */
export const outcomeOf = (script: OutcomeScript | undefined, runTimeMs: number, job: KubeObject): RunOutcome => {
  const fallback: RunOutcome = { result: "Complete", afterMs: runTimeMs }
  if (script === undefined) return fallback
  if (typeof script === "function") return script(job) ?? fallback
  const rule = script.find((candidate) => matches(candidate, job))
  if (rule === undefined) return fallback
  return {
    result: rule.result,
    afterMs: rule.afterMs ?? runTimeMs,
    ...(rule.message === undefined ? {} : { message: rule.message })
  }
}
