import { hasWorkDir } from "./AdapterLimits.ts"
import { DispatchEnv, epochPrefix } from "./Names.ts"
import type { StartRequest } from "./Wire.ts"

/** One entry of spec.trainer.env. */
export interface EnvVar {
  readonly name: string
  readonly value: string
}

/** The trainer's env: the job's entries sorted by key, then dispatch's six (seven with WorkDir) in DispatchEnv order. */
export const renderEnv = (request: StartRequest, trainJob: string, namespace: string): Array<EnvVar> => {
  // The default sort compares UTF-16 code units, never the locale, so the order is the same everywhere.
  const own = Object.keys(request.spec.env)
    .sort()
    .map((name) => ({ name, value: request.spec.env[name]! }))
  const dispatch: Array<EnvVar> = [
    { name: DispatchEnv.jobId, value: request.job },
    { name: DispatchEnv.generation, value: String(request.generation) },
    { name: DispatchEnv.submission, value: String(request.submission) },
    { name: DispatchEnv.epochPrefix, value: String(epochPrefix(request.generation, request.submission)) },
    { name: DispatchEnv.trainJob, value: trainJob },
    { name: DispatchEnv.namespace, value: namespace }
  ]
  if (hasWorkDir(request.spec)) dispatch.push({ name: DispatchEnv.workDir, value: request.spec.workDir! })
  return [...own, ...dispatch]
}
