// The campaign's invariants, checked against what the simulator stores after a schedule has settled (and the
// service's own record of its jobs where only it knows: status, history, whether it still retries). Pure: an
// observation in, every violation out.
import { passingMark, refusalMark } from "./FaultInjection.ts"
import { firstStatus, isEdge } from "./StatusEdges.ts"

/** Where a job's dispatch stands, as the service stores it. */
export type Progress =
  | { readonly kind: "terminal" }
  /** Waiting for its next attempt at `at` (service clock). */
  | { readonly kind: "retrying"; readonly at: number }
  /** Anything else: claimed, on the cluster, stopping. */
  | { readonly kind: "active"; readonly state: string }

/** One job of the schedule, as the service stores it. */
export interface JobRecord {
  readonly id: number
  /** The JobID its objects carry in their labels; null when it never got that far. */
  readonly key: string | null
  readonly status: string
  readonly progress: Progress
  readonly deleted: boolean
  /** A cancel was accepted, or the job's history says it was cancelled. */
  readonly cancelled: boolean
  readonly history: ReadonlyArray<{ readonly status: string; readonly reason?: string }>
  /** Every reason the service stored for how the job ended (its last reason, last error, last history entry). */
  readonly failure: string
}

/** An object of ours in the simulator's store. */
export interface StoredObject {
  readonly name: string
  readonly uid: string
  /** Every label value: one of them is the JobID. */
  readonly labelValues: ReadonlyArray<string>
  readonly owners: ReadonlyArray<{ readonly kind: string; readonly name: string; readonly uid: string }>
}

/** A TrainJob in the store. */
export interface StoredTrainJob extends StoredObject {
  readonly suspended: boolean
}

/** Everything the invariants are checked on. */
export interface Observation {
  /** The service's clock when observed. */
  readonly now: number
  readonly jobs: ReadonlyArray<JobRecord>
  readonly trainJobs: ReadonlyArray<StoredTrainJob>
  /** Runtime copies: TrainingRuntimes dispatch made (the source runtimes and probes left out). */
  readonly copies: ReadonlyArray<StoredObject>
  /** Names of the TrainJobs whose create the simulator applied, with the label values they carried. */
  readonly landedTrainJobs: ReadonlyArray<{ readonly name: string; readonly labelValues: ReadonlyArray<string> }>
  /** Names of the TrainJobs the service read (GET answered 200). */
  readonly readBacks: ReadonlyArray<string>
  /** Every answer of the service's API during the schedule; `lost` when its process died before answering. */
  readonly answers: ReadonlyArray<{ readonly request: string; readonly status: number; readonly lost: boolean }>
}

/** One broken invariant. */
export interface Violation {
  readonly invariant: 1 | 2 | 3 | 4 | 5 | 6 | 7
  readonly job?: number
  readonly detail: string
}

/** What each invariant says, for failure messages. */
export const invariantNames: Readonly<Record<Violation["invariant"], string>> = {
  1: "every job is terminal, or still progressing with a future retry time",
  2: "every cancelled or deleted job has no TrainJob and no runtime copy",
  3: "no job failed on a fault that a retry would have passed",
  4: "at most one TrainJob per job, and every started job's TrainJob is owned and read back",
  5: "no runtime copy without an owner",
  6: "each job's status history only moves along the state machine's edges",
  7: "no 5xx for any request in the schedule"
}

const of = (key: string | null, object: { readonly labelValues: ReadonlyArray<string> }) => key !== null && object.labelValues.includes(key)

/** Every violation of the seven invariants in an observation. */
export const violations = (o: Observation): ReadonlyArray<Violation> => {
  const found: Array<Violation> = []
  const add = (invariant: Violation["invariant"], detail: string, job?: number) => found.push({ invariant, detail, ...(job === undefined ? {} : { job }) })
  for (const job of o.jobs) {
    const trainJobs = o.trainJobs.filter((t) => of(job.key, t))
    const copies = o.copies.filter((c) => of(job.key, c))
    // 1
    if (job.progress.kind === "active") add(1, `job ${job.id} is still ${job.progress.state} after the schedule settled`, job.id)
    if (job.progress.kind === "retrying" && job.progress.at <= o.now) add(1, `job ${job.id}'s retry at ${job.progress.at} is past (now ${o.now}) and it did not happen`, job.id)
    // 2
    if (job.cancelled || job.deleted) {
      const what = job.deleted ? "deleted" : "cancelled"
      for (const t of trainJobs) add(2, `${what} job ${job.id} still has TrainJob ${t.name}${t.suspended ? " (suspended)" : " (running)"}`, job.id)
      for (const c of copies) add(2, `${what} job ${job.id} still has runtime copy ${c.name}`, job.id)
    }
    // 3
    if (job.status === "failed" && !job.cancelled && !job.deleted && !job.failure.includes(refusalMark)) {
      const passing = job.failure.includes(passingMark) ? "an injected passing fault" : "no refusal"
      add(3, `job ${job.id} failed on ${passing}: ${job.failure}`, job.id)
    }
    // 4
    const names = new Set(o.landedTrainJobs.filter((t) => of(job.key, t)).map((t) => t.name))
    if (names.size > 1) add(4, `job ${job.id} has ${names.size} TrainJobs created: ${[...names].join(", ")}`, job.id)
    if (trainJobs.length > 1) add(4, `job ${job.id} has ${trainJobs.length} TrainJobs stored`, job.id)
    // 6
    const statuses = job.history.map((h) => h.status)
    if (statuses[0] !== firstStatus) add(6, `job ${job.id}'s history starts with ${statuses[0] ?? "nothing"}`, job.id)
    for (let i = 1; i < statuses.length; i++) {
      const [from, to] = [statuses[i - 1] ?? "", statuses[i] ?? ""]
      if (!isEdge(from, to)) add(6, `job ${job.id}'s history goes ${from} -> ${to}: ${statuses.join(" -> ")}`, job.id)
    }
  }
  // 4: a started TrainJob (unsuspended) went through Start's steps 7 and 8.
  for (const t of o.trainJobs) {
    if (t.suspended) continue
    const copy = o.copies.find((c) => c.name === t.name)
    if (copy === undefined || !copy.owners.some((r) => r.kind === "TrainJob" && r.name === t.name && r.uid === t.uid)) {
      add(4, `started TrainJob ${t.name} does not own its runtime copy (${copy === undefined ? "none" : JSON.stringify(copy.owners)})`)
    }
    if (!o.readBacks.includes(t.name)) add(4, `started TrainJob ${t.name} was never read back`)
  }
  // 5
  for (const c of o.copies) {
    const owned = c.owners.some((r) => r.kind === "TrainJob" && o.trainJobs.some((t) => t.name === r.name && t.uid === r.uid))
    if (!owned) add(5, `runtime copy ${c.name} has no owning TrainJob (owners: ${JSON.stringify(c.owners)})`)
  }
  // 7
  for (const a of o.answers) if (a.status >= 500 && !a.lost) add(7, `${a.request} answered ${a.status}`)
  return found
}
