import { MAX_INT32, TRAINER_MAX_ITEM_CHARS, TRAINER_MAX_ITEMS } from "./Upstream.ts"
import type { JobSpec } from "./Wire.ts"

/** The prologue's four items: `/bin/sh`, `-c`, the script, `dispatch-prologue`. */
export const PROLOGUE_ITEMS = 4
/** The most command items a job may have. */
export const MAX_COMMAND_ITEMS = TRAINER_MAX_ITEMS - PROLOGUE_ITEMS
/** The most env entries a job may have without WorkDir (dispatch adds six). */
export const MAX_ENV = TRAINER_MAX_ITEMS - 6
/** The most env entries a job may have with WorkDir (dispatch adds seven). */
export const MAX_ENV_WITH_WORKDIR = TRAINER_MAX_ITEMS - 7

/** Whether a spec sets a working directory (an empty string is Go's zero value: unset). */
export const hasWorkDir = (spec: JobSpec): boolean => spec.workDir !== undefined && spec.workDir.length > 0

/** The adapter's own limits (ErrInvalid), from what Trainer's CRD admits once dispatch's items are added. */
export const limitReasons = (spec: JobSpec): Array<string> => {
  const reasons: Array<string> = []
  if (spec.command.length > MAX_COMMAND_ITEMS) {
    reasons.push(`spec.command: ${spec.command.length} items, more than ${MAX_COMMAND_ITEMS} (Trainer allows ${TRAINER_MAX_ITEMS}, the prologue takes ${PROLOGUE_ITEMS})`)
  }
  // dash execs such a program, but bash's exec reads it as an option; no POSIX sh spelling avoids both
  // (dash's exec does not take "--"), so it is refused rather than run differently per image.
  if (spec.command[0]?.startsWith("-") === true) reasons.push(`spec.command[0]: begins with '-', which a shell's exec may read as an option; name the program first`)
  spec.command.forEach((item, i) => {
    if (item.length > TRAINER_MAX_ITEM_CHARS) reasons.push(`spec.command[${i}]: ${item.length} characters, more than Trainer's ${TRAINER_MAX_ITEM_CHARS}`)
  })
  const envCount = Object.keys(spec.env).length
  const maxEnv = hasWorkDir(spec) ? MAX_ENV_WITH_WORKDIR : MAX_ENV
  if (envCount > maxEnv) {
    reasons.push(`spec.env: ${envCount} entries, more than ${maxEnv}${hasWorkDir(spec) ? " with workDir" : ""} (Trainer allows ${TRAINER_MAX_ITEMS}, dispatch adds ${TRAINER_MAX_ITEMS - maxEnv})`)
  }
  if (spec.nodes > MAX_INT32) reasons.push(`spec.nodes: ${spec.nodes} does not fit Trainer's int32 numNodes`)
  if ((spec.procsPerNode ?? 0) > MAX_INT32) reasons.push(`spec.procsPerNode: ${spec.procsPerNode} does not fit Trainer's int32 numProcPerNode`)
  return reasons
}
