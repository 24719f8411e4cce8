// Trainer's TrainJob controller: brings every TrainJob it manages to the status of stepTrainJob, skipping
// jobs managed by someone else, jobs whose runtime is gone, and jobs whose pod names cannot exist (those
// get no status at all, as on a real cluster). It tells the simulator when a running job's status next
// moves with the clock, so steps with nothing written and nothing due skip it.
import type { Controller, KubeObject, SystemClient } from "../Api.ts"
import { asArray, asRecord, asString, at, isDeleting, nameOf, sameJson, type JsonRecord } from "./KubeFields.ts"
import type { RunOutcome, TrainerOptions } from "./Options.ts"
import { replicatedJobsOf, unschedulableJobs } from "./ReplicatedJobs.ts"
import { defaultRunTimeMs, outcomeOf } from "./RunOutcomes.ts"
import { ReconcileMemo } from "./ReconcileMemo.ts"
import { lookUpRuntime } from "./Runtimes.ts"
import { admittedNodeLabels, renderedPodTemplate } from "./PodTemplates.ts"
import { selectorMatches, type SimNode } from "./PodStatuses.ts"
import { updateStatus } from "./StoreWrites.ts"
import { ensureJobSet } from "./TrainJobJobSets.ts"
import { isFinished, stepTrainJob } from "./TrainJobLifecycle.ts"
import { trainerManager } from "./WellKnown.ts"

const runtimeOf = (system: SystemClient, job: KubeObject): KubeObject | undefined => {
  const lookup = lookUpRuntime(system, job)
  return "runtime" in lookup ? lookup.runtime : undefined
}

// A run whose pods no node can take never ends by itself (only its deadline can end it), and none of
// its Jobs is ready: their pods stay Pending.
const unschedulable = { result: "Complete", afterMs: Number.POSITIVE_INFINITY } as const
const withNothingReady = (status: JsonRecord): JsonRecord => ({
  ...status,
  jobsStatus: asArray(status["jobsStatus"]).map((entry) => ({ ...asRecord(entry), ready: 0 }))
})

// With exec the processes decide: the run ends as its JobSet ends (its Jobs end as their pods' processes
// exit), and until then only the deadline can end it.
const jobSetOutcome = (system: SystemClient, job: KubeObject): RunOutcome => {
  const jobSet = system.get("jobsets", asString(at(job, "metadata", "namespace")) ?? "default", nameOf(job))
  const terminal = asString(at(jobSet, "status", "terminalState"))
  if (terminal === "Completed") return { result: "Complete", afterMs: 0 }
  if (terminal === "Failed") return { result: "Failed", afterMs: 0 }
  return unschedulable
}

/**
 * Trainer's controller, configured by `options`; with a node, it runs each TrainJob as a JobSet whose
 * pods that node must take; with `exec`, a run ends as its JobSet does instead of by the script.
 */
export const trainerController = (options: TrainerOptions, node?: SimNode, exec = false): Controller => {
  // Jobs that had nothing to write are skipped until they, their runtime or their due time change. A
  // running job is skipped only when no onRun hook must see it every step and its outcome depends on the
  // job alone (a scripted function might not).
  const memo = new ReconcileMemo()
  const runningMaySettle = options.onRun === undefined && typeof options.outcomes !== "function" && !exec
  // Only a running job's status moves with the clock; everything else waits for a write to the store.
  let dueAt = Number.NEGATIVE_INFINITY
  return {
    name: "trainer.kubeflow.org/trainjob-controller",
    dueAt: () => dueAt,
    reconcile(system: SystemClient) {
      const now = system.now()
      let next = Number.POSITIVE_INFINITY
      for (const job of system.list("trainjobs")) {
        const settled = memo.settledUntil(job, now, () => runtimeOf(system, job))
        if (settled !== undefined) {
          next = Math.min(next, settled)
          continue
        }
        if (isDeleting(job) || isFinished(job) || (asString(at(job, "spec", "managedBy")) ?? trainerManager) !== trainerManager) {
          memo.settle(job, undefined, Number.POSITIVE_INFINITY)
          continue
        }
        const lookup = lookUpRuntime(system, job)
        if ("problem" in lookup) continue
        const jobs = replicatedJobsOf(lookup.runtime, job)
        if (unschedulableJobs(nameOf(job), jobs).length > 0) continue
        const wroteJobSet = node !== undefined && ensureJobSet(system, job, lookup.runtime, jobs)
        const placeable = node === undefined || jobs.every((replicated) => selectorMatches(at(renderedPodTemplate(job, lookup.runtime, replicated), "spec"), node, admittedNodeLabels(job, replicated.name)))
        const outcome = !placeable ? unschedulable : exec ? jobSetOutcome(system, job) : outcomeOf(options.outcomes, options.runTimeMs ?? defaultRunTimeMs, job)
        const stepped = stepTrainJob(job, jobs, outcome, now)
        const step = placeable || stepped.phase !== "running" ? stepped : { ...stepped, status: withNothingReady(stepped.status) }
        const unchanged = sameJson(step.status, job["status"] ?? {})
        const current = unchanged ? job : updateStatus(system, "trainjobs", { ...job, status: step.status })
        if (step.phase === "running" && current !== undefined) options.onRun?.(current, system)
        if (unchanged && !wroteJobSet && (step.phase !== "running" || runningMaySettle)) {
          memo.settle(job, lookup.runtime, step.dueAt)
          next = Math.min(next, step.dueAt)
        } else {
          next = now
        }
      }
      dueAt = next
    }
  }
}
