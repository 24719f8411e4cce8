// The AdmissionCheck objects named in Kueue's options: created when the clock first moves and kept
// Active, as the external check controller that owns them would.
import type { SystemClient } from "../../Api.ts"
import { isConditionTrue, readConditions, setCondition } from "../shared/Conditions.ts"
import { at } from "../shared/KubeFields.ts"
import type { KueueOptions } from "../Options.ts"
import { createObject, updateStatus } from "../shared/StoreWrites.ts"
import { formatTimestamp } from "../shared/Timestamps.ts"
import { kueueApiVersion } from "../shared/WellKnown.ts"

/** Every admission check named by the options (listed or used by a queue), without repeats. */
export const admissionCheckNames = (options: KueueOptions): ReadonlyArray<string> => [
  ...new Set([
    ...(options.admissionChecks ?? []),
    ...Object.values(options.queues ?? {}).flatMap((queue) => queue.admissionChecks ?? []),
    ...(options.seedQueues ?? []).flatMap((seed) => seed.admissionChecks ?? [])
  ])
]

/** Creates the configured AdmissionChecks that are missing and marks every one Active. */
export const keepAdmissionChecksActive = (system: SystemClient, options: KueueOptions): void => {
  for (const name of admissionCheckNames(options)) {
    const check = system.get("admissionchecks", undefined, name) ?? createObject(system, "admissionchecks", {
      apiVersion: kueueApiVersion,
      kind: "AdmissionCheck",
      metadata: { name },
      spec: { controllerName: options.checkControllerName ?? "dispatch.sim/admission-check" }
    })
    if (check === undefined) continue
    const conditions = readConditions(at(check, "status", "conditions"))
    if (isConditionTrue(conditions, "Active")) continue
    const active = setCondition(
      conditions,
      { type: "Active", status: "True", reason: "Active", message: "The admission check is active" },
      formatTimestamp(system.now()),
      16
    )
    updateStatus(system, "admissionchecks", { ...check, status: { ...((check["status"] as object | undefined) ?? {}), conditions: active } })
  }
}
