import { admissionGatedBy, parseAdmissionGates } from "@dispatch/kube"
import { Option } from "effect"
import { decodeWorkload, type KubeResource } from "./KubeObjects.ts"

/** Kueue's label naming the UID of a Workload's job. */
export const jobUidLabel = "kueue.x-k8s.io/job-uid"

/** What a Workload must show. */
export interface WorkloadExpectation {
  /** The TrainJob existed before this Start: Open may have removed dispatch's gate (only dispatch removes
   * it), so a Workload without it still counts; the admission check must still be listed. */
  readonly gateMayBeGone?: boolean
}

const problemsOf = (workload: KubeResource, gate: string, check: string, expectation: WorkloadExpectation): ReadonlyArray<string> => {
  const name = workload.metadata.name
  const gates = parseAdmissionGates(workload.metadata.annotations?.[admissionGatedBy])
  const checks: ReadonlyArray<string> = Option.match(decodeWorkload(workload), {
    onNone: (): ReadonlyArray<string> => [],
    onSome: (w) => (w.status?.admissionChecks ?? []).map((c) => c.name)
  })
  return [
    ...(gates.includes(gate) || expectation.gateMayBeGone === true ? [] : [`Workload ${name} does not carry dispatch's admission gate ${gate} in ${admissionGatedBy}`]),
    ...(checks.includes(check) ? [] : [`Workload ${name} does not list the admission check ${check}`])
  ]
}

/** Why none of a TrainJob's Workloads is ready for dispatch to hold it: empty when one carries the start
 * gate and lists the admission check. */
export const workloadProblems = (
  workloads: ReadonlyArray<KubeResource>,
  gate: string,
  check: string,
  expectation: WorkloadExpectation = {}
): ReadonlyArray<string> => {
  if (workloads.length === 0) return ["no Workload exists for the TrainJob yet"]
  const each = workloads.map((w) => problemsOf(w, gate, check, expectation))
  return each.some((p) => p.length === 0) ? [] : each.flat()
}
