// Trainer's TrainJob controller: brings every TrainJob it manages to the status its JobSet reports (or,
// with no object tree, to the status of stepTrainJob), skipping
// jobs managed by someone else, jobs whose runtime is gone, and jobs whose pod names cannot exist (those
// get no status at all, as on a real cluster). It tells the simulator when a running job's status next
// moves with the clock, so steps with nothing written and nothing due skip it.
import type { Controller, KubeObject, ObjectChange, SystemClient } from "../../Api.ts"
import { keyOf, splitKey } from "../shared/ChangeQueue.ts"
import { asString, at, isDeleting, nameOf, namespaceOf, sameJson } from "../shared/KubeFields.ts"
import type { TrainerOptions } from "../Options.ts"
import { replicatedJobsOf, unschedulableJobs } from "./ReplicatedJobs.ts"
import { defaultRunTimeMs, outcomeOf } from "./RunOutcomes.ts"
import { ReconcileMemo } from "../shared/ReconcileMemo.ts"
import { lookUpRuntime } from "./Runtimes.ts"
import { RuntimeReaders, runtimeKey, runtimeKeyOf } from "./RuntimeReaders.ts"
import { updateStatus } from "../shared/StoreWrites.ts"
import { ensureJobSet } from "./TrainJobJobSets.ts"
import { deriveTrainJob, jobSetReport, stepTrainJob } from "./TrainJobLifecycle.ts"
import { isFinished } from "../../kinds/trainer/trainjob/TrainJobState.ts"
import { trainerManager } from "../shared/WellKnown.ts"

// What a job's look reads of its runtime: only its spec (a frozen stored part, replaced when the spec
// changes), so a write to the runtime's metadata alone (Start's owner reference) settles nothing anew.
const runtimeInput = (runtime: KubeObject): object => {
  const spec = runtime["spec"]
  return typeof spec === "object" && spec !== null ? spec : runtime
}

const runtimeOf = (system: SystemClient, job: KubeObject): object | undefined => {
  const lookup = lookUpRuntime(system, job)
  return "runtime" in lookup ? runtimeInput(lookup.runtime) : undefined
}

// The client the controllers write through keeps (and freezes) the object each write is handed: they build
// one per write. A user's hook may fill one object again for each write, so its writes hand over copies.
const copyingWrites = (system: SystemClient): SystemClient => ({
  ...system,
  create: (resource, object) => system.create(resource, structuredClone(object)),
  update: (resource, object) => system.update(resource, structuredClone(object)),
  updateStatus: (resource, object) => system.updateStatus(resource, structuredClone(object))
})

/**
 * Trainer's controller, configured by `options`; with `tree`, it runs each TrainJob as a JobSet and
 * derives the TrainJob's status from the JobSet's; without, the TrainJob's status moves by the clock and
 * its scripted outcome alone. Given the store's change feed, a pass visits only the TrainJobs written
 * since the last one (or whose JobSet was), those not settled, and those due (all, after a runtime
 * changes); without it, every TrainJob. `onRun` sees each job running at the end of a step once; with
 * the tree, the caller ends the step (afterStep).
 */
export const trainerController = (
  options: TrainerOptions,
  tree = false,
  onChange?: (listener: (change: ObjectChange) => void) => void
): Controller & { readonly afterStep: (system: SystemClient) => void } => {
  // Jobs that had nothing to write are skipped until they, their runtime or their due time change. A
  // running job is skipped only when no onRun hook must see it every step and its outcome depends on the
  // job alone (a scripted function might not).
  const memo = new ReconcileMemo()
  const runningMaySettle = options.onRun === undefined && (tree || typeof options.outcomes !== "function")
  // TrainJobs whose JobSet was written since their last look: their memo, which knows only the runtime, must not skip them.
  const jobSetMoved = new Set<string>()
  // The jobs running at their last look, for onRun once the step is over.
  const running = new Set<string>()
  const callOnRun = (controllerClient: SystemClient): void => {
    if (options.onRun === undefined) return
    const system = copyingWrites(controllerClient)
    for (const key of [...running].sort()) {
      const { namespace, name } = splitKey(key)
      const job = system.get("trainjobs", namespace, name)
      if (job === undefined) running.delete(key)
      else options.onRun(job, system)
    }
  }
  // Only a running job's status moves with the clock; everything else waits for a write to the store.
  let dueAt = Number.NEGATIVE_INFINITY
  // With the change feed: the keys to visit at the next pass whatever their due time (written, or not
  // settled by the last look), and each settled job's due time. `everything` until the first pass and
  // after a runtime changes (a job's input).
  const toVisit = new Set<string>()
  // Jobs that cannot run yet (no runtime, or pod names that cannot exist): looked at by every pass, as a
  // full pass would, but no reason for one.
  const waiting = new Set<string>()
  const settledDue = new Map<string, number>()
  let everything = true
  // A runtime's change sends only the jobs that read it to the next pass: the others' memo would skip them.
  const readers = new RuntimeReaders()
  const runtimesMoved = new Set<string>()
  onChange?.((change) => {
    // A JobSet is named as its TrainJob, so its key is the TrainJob's.
    if (change.resource === "trainjobs") {
      const key = keyOf(change.object)
      toVisit.add(key)
      // A write that kept the stored spec (a status write) reads the runtime its last change named.
      const keptSpec = change.type === "MODIFIED" && change.previous?.["spec"] === change.object["spec"] && readers.knows(key)
      if (!keptSpec) readers.track(key, change.type === "DELETED" ? undefined : runtimeKeyOf(change.object))
    } else if (tree && change.resource === "jobsets") {
      const key = keyOf(change.object)
      toVisit.add(key)
      jobSetMoved.add(key)
    } else if (change.resource === "trainingruntimes" || change.resource === "clustertrainingruntimes") {
      runtimesMoved.add(runtimeKey(change.resource, namespaceOf(change.object), nameOf(change.object)))
    }
  })
  const jobsToVisit = (system: SystemClient, now: number): ReadonlyArray<KubeObject> => {
    if (onChange === undefined || everything) {
      everything = false
      toVisit.clear()
      waiting.clear()
      settledDue.clear()
      runtimesMoved.clear()
      return system.list("trainjobs")
    }
    for (const runtime of runtimesMoved) for (const key of readers.readersOf(runtime)) toVisit.add(key)
    runtimesMoved.clear()
    for (const [key, due] of settledDue) if (due <= now) toVisit.add(key)
    // In key order, as a full pass would meet them: writes (and the uids they draw) come in the same order.
    for (const key of waiting) toVisit.add(key)
    const keys = [...toVisit].sort()
    toVisit.clear()
    waiting.clear()
    const jobs: Array<KubeObject> = []
    for (const key of keys) {
      const { namespace, name } = splitKey(key)
      const job = system.get("trainjobs", namespace, name)
      if (job === undefined) settledDue.delete(key)
      else jobs.push(job)
    }
    return jobs
  }
  // A job settled for good is not kept: no pass visits it by time, and the scans over settledDue at
  // every pass then cost the jobs that are due some day, not every job stored.
  const settledAt = (key: string, due: number): void => {
    if (due === Number.POSITIVE_INFINITY) settledDue.delete(key)
    else settledDue.set(key, due)
  }
  const unsettled = (key: string, into: Set<string>): void => {
    settledDue.delete(key)
    into.add(key)
  }
  return {
    name: "trainer.kubeflow.org/trainjob-controller",
    dueAt: () => dueAt,
    reconcile(system: SystemClient) {
      const now = system.now()
      let revisit = false
      for (const job of jobsToVisit(system, now)) {
        // Its key, made once: a look files the job under it several times.
        const key = keyOf(job)
        const settled = jobSetMoved.delete(key) ? undefined : memo.settledUntil(job, now, () => runtimeOf(system, job))
        if (settled !== undefined) {
          settledAt(key, settled)
          continue
        }
        if (isDeleting(job) || (isFinished(job) && !tree) || (asString(at(job, "spec", "managedBy")) ?? trainerManager) !== trainerManager) {
          memo.settle(job, undefined, Number.POSITIVE_INFINITY)
          settledAt(key, Number.POSITIVE_INFINITY)
          continue
        }
        const lookup = lookUpRuntime(system, job)
        if ("problem" in lookup && isFinished(job)) {
          // A finished job whose runtime is gone keeps the status it has.
          memo.settle(job, undefined, Number.POSITIVE_INFINITY)
          settledAt(key, Number.POSITIVE_INFINITY)
          continue
        }
        if ("problem" in lookup) {
          unsettled(key, waiting)
          continue
        }
        const jobs = replicatedJobsOf(lookup.runtime, job)
        if (unschedulableJobs(nameOf(job), jobs).length > 0) {
          unsettled(key, waiting)
          continue
        }
        const wroteJobSet = tree && !isFinished(job) && ensureJobSet(system, job, lookup.runtime, jobs)
        const outcome = outcomeOf(options.outcomes, options.runTimeMs ?? defaultRunTimeMs, job)
        const step = tree
          ? deriveTrainJob(job, jobs, jobSetReport(system.get("jobsets", namespaceOf(job) ?? "default", nameOf(job))), now, outcome.message)
          : stepTrainJob(job, jobs, outcome, now)
        const unchanged = sameJson(step.status, job["status"] ?? {})
        const current = unchanged ? job : updateStatus(system, "trainjobs", { ...job, status: step.status })
        if (step.phase === "running" && current !== undefined) running.add(key)
        else running.delete(key)
        if (unchanged && !wroteJobSet && (step.phase !== "running" || runningMaySettle)) {
          memo.settle(job, runtimeInput(lookup.runtime), step.dueAt)
          settledAt(key, step.dueAt)
        } else {
          unsettled(key, toVisit)
          revisit = true
        }
      }
      let next = Number.POSITIVE_INFINITY
      for (const due of settledDue.values()) next = Math.min(next, due)
      // A job that wrote (or must be seen every step) is looked at again at the next step, as before.
      dueAt = revisit ? now : next
      // With the tree, the step is over only when the tree's controllers are (afterStep).
      if (!tree) callOnRun(system)
    },
    afterStep: callOnRun
  }
}
