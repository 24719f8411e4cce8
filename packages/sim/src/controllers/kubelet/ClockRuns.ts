// How a pod runs on the clock runtime (no `exec`): its TrainJob's scripted outcome says how long the
// run lasts, counted from the TrainJob's start (its creation or last resume, as the controllers react at
// once), and how its containers exit: 0 when the run completes; 1 for the trainer step's pods and 0 for
// the others when it fails.
import type { KubeObject } from "../../Api.ts"
import type { TrainerOptions } from "../Options.ts"
import { defaultRunTimeMs, outcomeOf } from "../trainer/RunOutcomes.ts"
import { runStart } from "../trainer/TrainJobLifecycle.ts"

/** When a pod's containers exit by the clock, and with what code. */
export interface ClockRun {
  readonly endsAt: number
  readonly exitCode: number
}

/** The clock run of a pod of `trainJob` (undefined when the TrainJob has not started). */
export const clockRunOf = (options: TrainerOptions, trainJob: KubeObject, trainerStep: boolean): ClockRun | undefined => {
  const started = runStart(trainJob)
  if (started === undefined) return undefined
  const outcome = outcomeOf(options.outcomes, options.runTimeMs ?? defaultRunTimeMs, trainJob)
  return { endsAt: started + outcome.afterMs, exitCode: outcome.result === "Complete" || !trainerStep ? 0 : 1 }
}
