// Trainer's TrainJob controller: brings every TrainJob it manages to the status of stepTrainJob, skipping
// jobs managed by someone else, jobs whose runtime is gone, and jobs whose pod names cannot exist (those
// get no status at all, as on a real cluster).
import type { Controller, SystemClient } from "../Api.ts"
import { asString, at, isDeleting, nameOf, sameJson } from "./KubeFields.ts"
import type { TrainerOptions } from "./Options.ts"
import { replicatedJobsOf, unschedulableJobs } from "./ReplicatedJobs.ts"
import { defaultRunTimeMs, outcomeOf } from "./RunOutcomes.ts"
import { lookUpRuntime } from "./Runtimes.ts"
import { updateStatus } from "./StoreWrites.ts"
import { isFinished, stepTrainJob } from "./TrainJobLifecycle.ts"
import { trainerManager } from "./WellKnown.ts"

/** Trainer's controller, configured by `options`. */
export const trainerController = (options: TrainerOptions): Controller => ({
  name: "trainer.kubeflow.org/trainjob-controller",
  reconcile(system: SystemClient) {
    for (const job of system.list("trainjobs")) {
      if (isDeleting(job) || isFinished(job)) continue
      if ((asString(at(job, "spec", "managedBy")) ?? trainerManager) !== trainerManager) continue
      const lookup = lookUpRuntime(system, job)
      if ("problem" in lookup) continue
      const jobs = replicatedJobsOf(lookup.runtime, job)
      if (unschedulableJobs(nameOf(job), jobs).length > 0) continue
      const outcome = outcomeOf(options.outcomes, options.runTimeMs ?? defaultRunTimeMs, job)
      const step = stepTrainJob(job, jobs, outcome, system.now())
      const current = sameJson(step.status, job["status"] ?? {}) ? job : updateStatus(system, "trainjobs", { ...job, status: step.status })
      if (step.phase === "running" && current !== undefined) options.onRun?.(current, system)
    }
  }
})
