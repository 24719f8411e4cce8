import { isNegative } from "./Duration.ts"
import { RESERVED_ENV_PREFIX } from "./Names.ts"
import { preview } from "./Preview.ts"
import type { JobSpec } from "./Wire.ts"

const C_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/

const hasNul = (s: string): boolean => s.includes("\u0000")

/** Whether a checkpoint is an absolute path or an `s3://` URL with a bucket. */
export const isCheckpoint = (checkpoint: string): boolean =>
  !hasNul(checkpoint) && (checkpoint.startsWith("/") || /^s3:\/\/[^/]/.test(checkpoint))

/** go/dispatch's JobSpec.Validate: every problem at once (ErrInvalid), one reason per bad field or item. */
export const validateJobSpec = (spec: JobSpec): Array<string> => {
  const reasons: Array<string> = []
  if (spec.command.length === 0) reasons.push("spec.command: no command")
  spec.command.forEach((item, i) => {
    if (hasNul(item)) reasons.push(`spec.command[${i}]: contains a NUL character`)
  })
  for (const [key, value] of Object.entries(spec.env)) {
    const where = `spec.env[${preview(key)}]`
    if (hasNul(key)) reasons.push(`${where}: the key contains a NUL character`)
    else if (!C_IDENTIFIER.test(key)) reasons.push(`${where}: the key is not a C identifier ([A-Za-z_][A-Za-z0-9_]*)`)
    else if (key.startsWith(RESERVED_ENV_PREFIX)) reasons.push(`${where}: keys beginning ${RESERVED_ENV_PREFIX} are reserved for dispatch`)
    if (hasNul(value)) reasons.push(`${where}: the value contains a NUL character`)
  }
  // WorkDir travels as an environment value, so it obeys the same NUL rule.
  if (spec.workDir !== undefined && hasNul(spec.workDir)) reasons.push("spec.workDir: contains a NUL character")
  if (spec.nodes < 1) reasons.push(`spec.nodes: must be at least 1, got ${spec.nodes}`)
  if ((spec.gpusPerNode ?? 0) < 0) reasons.push(`spec.gpusPerNode: must not be negative, got ${spec.gpusPerNode}`)
  if ((spec.procsPerNode ?? 0) < 0) reasons.push(`spec.procsPerNode: must not be negative, got ${spec.procsPerNode}`)
  if (spec.timeLimit !== undefined) {
    const negative = isNegative(spec.timeLimit)
    if (negative === undefined) reasons.push(`spec.timeLimit: ${preview(spec.timeLimit)} is not a duration (seconds, or Go syntax such as "1h30m")`)
    else if (negative) reasons.push(`spec.timeLimit: must not be negative, got ${preview(spec.timeLimit)}`)
  }
  if (spec.checkpoint !== undefined && !isCheckpoint(spec.checkpoint)) {
    reasons.push(`spec.checkpoint: ${preview(spec.checkpoint)} is neither an absolute path nor an s3:// URL`)
  }
  return reasons
}
