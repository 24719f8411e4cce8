// Who a write is recorded as: the fieldManager a client names, else the program its User-Agent names (as
// the real server derives it: the part before the first "/", so kubectl's own writes are "kubectl"), and
// the names the upstream controllers the simulator stands in for write with.
import type { FieldError } from "../validation/FieldErrors.ts"
import { forbidden, requiredValue, tooLong } from "../validation/FieldErrors.ts"

/** The longest fieldManager the real server takes. */
export const maxFieldManagerLength = 128

/** The manager of a write: the fieldManager given, else the User-Agent's program name (cut to 128 bytes). */
export const managerOf = (fieldManager: string | undefined, userAgent: string | undefined): string | undefined => {
  if (fieldManager !== undefined && fieldManager !== "") return fieldManager
  const program = (userAgent ?? "").split("/")[0] ?? ""
  return program === "" ? undefined : program.slice(0, maxFieldManagerLength)
}

/** What is wrong with a write's fieldManager and force options, as the real server's option validation says. */
export const writeOptionErrors = (options: { readonly fieldManager?: string | undefined; readonly force?: boolean | undefined; readonly apply: boolean }): ReadonlyArray<FieldError> => {
  const errors: Array<FieldError> = []
  const manager = options.fieldManager ?? ""
  if (options.apply && manager === "") errors.push(requiredValue("fieldManager", "is required for apply patch"))
  if (new TextEncoder().encode(manager).length > maxFieldManagerLength) errors.push(tooLong("fieldManager", maxFieldManagerLength))
  if (!options.apply && options.force === true) errors.push(forbidden("force", "may not be specified for non-apply patch"))
  return errors
}

// The simulator's controllers, by their names, and the managers their upstream counterparts write as:
// kube-controller-manager's Job controller and garbage collector, the kubelet, Trainer (its field owner
// "trainer"), Kueue (its admission's "kueue-admission" on Workload status) and JobSet, whose
// controller-runtime client names itself after its binary, "manager".
const controllerManagers: Readonly<Record<string, string>> = {
  "trainer.kubeflow.org/trainjob-controller": "trainer",
  "kueue.x-k8s.io/controller-manager": "kueue-admission",
  "jobset.x-k8s.io/jobset-controller": "manager",
  "batch/job-controller": "kube-controller-manager",
  kubelet: "kubelet"
}

/** The manager a simulator controller writes as (its own name when it has no upstream counterpart). */
export const controllerManager = (controller: string): string => controllerManagers[controller] ?? controller

/** The manager the simulator's own writes (its seed objects, and its users' writes through `system`) are recorded as. */
export const simulatorManager = "dispatch-sim"
