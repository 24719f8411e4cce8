// A job's dispatch life as one state machine: every user action and every answer of every cluster call is an
// event; the answer is the next state and the commands the service runs. The service decides nothing itself,
// so what holds of this module (tested on its own) holds of the service. Pure: time and the random draw of a
// retry's jitter come in with each event.
import { allowedChanges, transition, type JobStatus, type StatusChange } from "./JobStatus.ts"
import { retryDelayMs, withinBudget, type RetryPolicy } from "./RetryPolicy.ts"

/** What the job becomes once its stop is done. */
export type StopEnd = "cancelled" | "deleted" | "failed"

/** Where a job is in its dispatch life. Every state counts the attempts made so far (claims by a dispatcher). */
export type DispatchState =
  /** Waiting for a dispatcher, not before `retryAt`; `faults` are the reasons of the attempts so far. */
  | { readonly kind: "queued"; readonly attempts: number; readonly retryAt: number; readonly firstAt: number | null; readonly faults: ReadonlyArray<string> }
  /** Claimed after an earlier attempt: Find reads back what that attempt left before anything is started. */
  | { readonly kind: "claimed"; readonly attempts: number; readonly firstAt: number; readonly faults: ReadonlyArray<string> }
  /** Claimed, Start in flight. */
  | { readonly kind: "starting"; readonly attempts: number; readonly firstAt: number; readonly faults: ReadonlyArray<string> }
  /** A TrainJob create went unanswered: it may still land until `landsBy`, and nothing is created before then. */
  | { readonly kind: "unknown"; readonly attempts: number; readonly landsBy: number; readonly firstAt: number; readonly faults: ReadonlyArray<string> }
  /** Start made the TrainJob (its copy owned, read back), held; Open in flight. */
  | { readonly kind: "owned"; readonly attempts: number; readonly firstAt: number; readonly faults: ReadonlyArray<string> }
  /** Opened on the cluster and followed with Find; `status` is Dioptra's (queued until it runs). */
  | { readonly kind: "running"; readonly attempts: number; readonly status: "queued" | "started" }
  /** Held by its user: on the cluster (Hold done) or before it got there; `from` is the status it was held from. */
  | { readonly kind: "holding"; readonly attempts: number; readonly from: "queued" | "started"; readonly onCluster: boolean; readonly retryAt: number; readonly firstAt: number | null; readonly faults: ReadonlyArray<string> }
  /** Its cluster objects are being removed (Stop, tried again at `retryAt` until nothing is left); then it `ends`. */
  | { readonly kind: "stopping"; readonly attempts: number; readonly ends: StopEnd; readonly status: JobStatus; readonly reason: string; readonly retryAt: number; readonly tries: number }
  /** Ended (finished, failed, cancelled, or a status its user wrote): nothing of it is wanted on the cluster. */
  | { readonly kind: "done"; readonly attempts: number; readonly status: JobStatus; readonly reason: string | null }
  /** Deleted, and nothing of it left on the cluster. */
  | { readonly kind: "deleted"; readonly attempts: number; readonly status: JobStatus }

/** The state names, in the order the docs' table lists them. */
export const dispatchStateKinds = ["queued", "claimed", "starting", "unknown", "owned", "running", "holding", "stopping", "done", "deleted"] as const

/** How the service judges a failed cluster call's answer. */
export type Verdict =
  /** The same request would get the same answer (invalid, unsupported, forbidden, a webhook's denial, not ours). */
  | "refused"
  /** A fault that a retry may pass (unanswered and not landed, 429, 5xx, a timeout, a reset, a conflict re-read). */
  | "passing"
  /** A create went unanswered and may still land, until `landsBy`. */
  | "unknown"
  /** The backend lost its write access: its queue is proven again. */
  | "readOnly"

/** A failed cluster call: the verdict, the reason kept on the job, and the server's Retry-After or the time a
 * create may still land (`unknown`) when it said so. */
export interface Fault {
  readonly verdict: Verdict
  readonly reason: string
  readonly retryAfterMs?: number
  readonly landsBy?: number
}

/** What Find said of the job's TrainJob: the lifecycle's job states, as the service passes them on. */
export type Found = "Absent" | "InFlight" | "Held" | "Queued" | "Running" | "Succeeded" | "Failed" | "Stopping"

/** Something that happens to a job: a user's action, or the answer of a cluster call the machine asked for. */
export type DispatchEvent =
  | { readonly type: "cancel" }
  | { readonly type: "delete" }
  | { readonly type: "hold" }
  | { readonly type: "release" }
  | { readonly type: "rerun" }
  | { readonly type: "setStatus"; readonly change: StatusChange }
  /** A dispatcher claimed the job: it was due, or the dispatcher that held it stopped renewing its lease. */
  | { readonly type: "claim" }
  /** The job cannot be made into a StartRequest for its queue (a refusal the service finds itself). */
  | { readonly type: "unpreparable"; readonly reason: string }
  | { readonly type: "startOk" }
  | { readonly type: "startFailed"; readonly fault: Fault }
  | { readonly type: "openOk" }
  | { readonly type: "openFailed"; readonly fault: Fault }
  /** Find's answer, `untilMs` when InFlight, `reason` for a Failed or Succeeded TrainJob or one that is gone. */
  | { readonly type: "found"; readonly found: Found; readonly untilMs?: number; readonly reason?: string }
  | { readonly type: "findFailed"; readonly fault: Fault }
  /** Stop ran: `gone` when nothing of the job remains, else something is still going. */
  | { readonly type: "stopped"; readonly gone: boolean }
  | { readonly type: "stopFailed"; readonly fault: Fault }
  | { readonly type: "holdOk" }
  | { readonly type: "holdFailed"; readonly fault: Fault }
  | { readonly type: "releaseOk" }
  | { readonly type: "releaseFailed"; readonly fault: Fault }

/** What the service runs for a state: cluster calls, a time to come back, a status to record. */
export type DispatchCommand =
  /** Start the job's StartRequest (it adopts what an earlier attempt made). */
  | { readonly type: "start" }
  /** Find: read back what an earlier attempt left. */
  | { readonly type: "look" }
  /** Open the started TrainJob (its owner and read-back are Start's; Open lets it run). */
  | { readonly type: "open" }
  /** Stop: delete the TrainJob and its runtime copy, and say whether anything remains. */
  | { readonly type: "stop" }
  | { readonly type: "hold" }
  | { readonly type: "release" }
  /** Come back to the job at this time (a retry, a stop not yet done, the end of an unanswered create's bound). */
  | { readonly type: "retryAt"; readonly at: number }
  /** Prove the queue's backend again (it lost write access). */
  | { readonly type: "reprove"; readonly reason: string }
  /** Append this Dioptra status to the job's history, with the service's reason. */
  | { readonly type: "record"; readonly status: JobStatus; readonly reason?: string }

/** The machine's answer: the next state and what to run; `refused` (the state unchanged) when a user's action is
 * not allowed from this state, with why. */
export interface DispatchAnswer {
  readonly state: DispatchState
  readonly commands: ReadonlyArray<DispatchCommand>
  readonly refused?: string
}

/** What each event is judged with: the clock, the policy and a uniform draw in [0, 1) for a retry's jitter. */
export interface DispatchInput {
  readonly nowMs: number
  readonly policy: RetryPolicy
  readonly draw: number
}

/** A new job's state. */
export const newDispatch: DispatchState = { kind: "queued", attempts: 0, retryAt: 0, firstAt: null, faults: [] }

/** The Dioptra status a state shows. */
export const statusOf = (state: DispatchState): JobStatus => {
  switch (state.kind) {
    case "running":
      return state.status
    case "holding":
      return "deferred"
    case "stopping":
    case "done":
    case "deleted":
      return state.status
    default:
      return "queued"
  }
}

/** Whether the state wants something of the job on the cluster (made, kept or running). */
export const wantsCluster = (state: DispatchState): boolean =>
  ["claimed", "starting", "unknown", "owned", "running"].includes(state.kind) || (state.kind === "holding" && state.onCluster)

/** When the service comes back to the job by itself, if it does: a retry, an unanswered create's bound, a stop. */
export const nextRetryAt = (state: DispatchState): number | undefined =>
  state.kind === "queued" || state.kind === "stopping" ? state.retryAt : state.kind === "unknown" ? state.landsBy : undefined

// The service writes these directly, beside Dioptra's own changes: a job refused or cancelled before it ran
// fails from queued, a hold defers a started job, a held job fails when cancelled.
const serviceEdges: ReadonlyArray<readonly [JobStatus, JobStatus]> = [
  ["queued", "failed"],
  ["started", "deferred"],
  ["deferred", "failed"]
]

/** Whether a job's status history may move from one status to the next. */
export const allowedEdge = (from: JobStatus, to: JobStatus): boolean =>
  serviceEdges.some(([a, b]) => a === from && b === to) || allowedChanges[from].some((change) => (change === "reset" ? "queued" : change) === to)

const same = (state: DispatchState): DispatchAnswer => ({ state, commands: [] })
const refuse = (state: DispatchState, why: string): DispatchAnswer => ({ state, commands: [], refused: why })
const record = (status: JobStatus, reason?: string): DispatchCommand => (reason === undefined ? { type: "record", status } : { type: "record", status, reason })

/** The state a job stops in: the status it shows (failed for a cancel or a failure), its history entry, Stop. */
const stopping = (state: DispatchState, ends: StopEnd, reason: string, now: number): DispatchAnswer => {
  const status = ends === "deleted" ? statusOf(state) : "failed"
  const next: DispatchState = { kind: "stopping", attempts: state.attempts, ends, status, reason, retryAt: now, tries: 0 }
  const recorded = status === statusOf(state) ? [] : [record(status, reason)]
  return { state: next, commands: [...recorded, { type: "stop" }] }
}

/** Ends a job whose attempts may have left something on the cluster by stopping it; one never tried ends at once. */
const fail = (state: DispatchState, reason: string, now: number, touched: boolean): DispatchAnswer =>
  touched
    ? stopping(state, "failed", reason, now)
    : { state: { kind: "done", attempts: state.attempts, status: "failed", reason }, commands: [record("failed", reason)] }

type Attempting = Extract<DispatchState, { readonly kind: "claimed" | "starting" | "owned" }>

const allReasons = (faults: ReadonlyArray<string>): string => `gave up after ${faults.length} attempts: ${faults.join("; ")}`

/** A failed call during an attempt, as its verdict says: fail (stopping what may have landed), wait for an
 * unanswered create's bound, or try again after the policy's delay while the budget lasts. */
const afterFault = (state: Attempting, fault: Fault, input: DispatchInput): DispatchAnswer => {
  const { nowMs } = input
  if (fault.verdict === "refused") return fail(state, fault.reason, nowMs, true)
  const faults = [...state.faults, fault.reason]
  const base = { attempts: state.attempts, firstAt: state.firstAt, faults }
  if (fault.verdict !== "readOnly" && !withinBudget(input.policy, state.attempts, state.firstAt, nowMs)) return fail(state, allReasons(faults), nowMs, true)
  if (fault.verdict === "unknown") {
    const landsBy = Math.max(nowMs, fault.landsBy ?? nowMs)
    return { state: { kind: "unknown", landsBy, ...base }, commands: [{ type: "retryAt", at: landsBy }] }
  }
  const retryAt = nowMs + retryDelayMs(input.policy, state.attempts, input.draw, fault.retryAfterMs)
  const reprove: ReadonlyArray<DispatchCommand> = fault.verdict === "readOnly" ? [{ type: "reprove", reason: fault.reason }] : []
  return { state: { kind: "queued", retryAt, ...base }, commands: [...reprove, { type: "retryAt", at: retryAt }] }
}

const opened = (state: DispatchState): DispatchAnswer => ({ state: { kind: "running", attempts: state.attempts, status: "queued" }, commands: [] })

/** What an attempt does with Find's answer about what earlier attempts left. */
const afterLook = (state: Extract<DispatchState, { readonly kind: "claimed" }>, event: Extract<DispatchEvent, { readonly type: "found" }>, input: DispatchInput): DispatchAnswer => {
  switch (event.found) {
    case "Absent":
    case "Held":
      // Nothing there, or a TrainJob never opened (its Start may have died before its last steps): Start adopts it.
      return { state: { ...state, kind: "starting" }, commands: [{ type: "start" }] }
    case "InFlight":
      return afterFault(state, { verdict: "unknown", reason: "a create of the TrainJob went unanswered and may still land", ...(event.untilMs === undefined ? {} : { landsBy: event.untilMs }) }, input)
    case "Stopping":
      // Being deleted (an earlier Start's own clean-up): once gone, the next attempt starts afresh.
      return afterFault(state, { verdict: "passing", reason: event.reason ?? "the TrainJob is being deleted" }, input)
    case "Queued":
      // Opened, but perhaps only half: a Kueue Open cut short after it took the gate off the Workload leaves its
      // admission check Pending, so Kueue never admits the job. Open again; it does only what is left undone.
      return { state: { ...state, kind: "owned" }, commands: [{ type: "open" }] }
    default:
      return opened(state)
  }
}

/** Where Find's answer takes a followed job: the statuses it passes through, and whether it ended. */
const follow = (state: Extract<DispatchState, { readonly kind: "running" }>, event: Extract<DispatchEvent, { readonly type: "found" }>): DispatchAnswer => {
  const reason = event.reason
  const end = (status: JobStatus, steps: ReadonlyArray<JobStatus>): DispatchAnswer => ({
    state: { kind: "done", attempts: state.attempts, status, reason: reason ?? null },
    commands: steps.map((s, i) => record(s, i === steps.length - 1 ? reason : undefined))
  })
  switch (event.found) {
    case "Absent":
    case "Stopping":
      return end("failed", ["failed"])
    case "Running":
      return state.status === "started" ? same(state) : { state: { ...state, status: "started" }, commands: [record("started")] }
    case "Succeeded":
      return end("finished", state.status === "started" ? ["finished"] : ["started", "finished"])
    case "Failed":
      return end("failed", state.status === "started" ? ["failed"] : ["started", "failed"])
    default:
      // Held by someone else, or queued again (a started job Kueue requeued stays started): nothing to record.
      return same(state)
  }
}

const userAction = (state: DispatchState, event: Extract<DispatchEvent, { readonly type: "cancel" | "delete" | "hold" | "release" | "rerun" | "setStatus" }>, input: DispatchInput): DispatchAnswer => {
  const { nowMs } = input
  const touched = state.attempts > 0 || wantsCluster(state)
  switch (event.type) {
    case "rerun":
      return same(state)
    case "delete":
      if (state.kind === "deleted") return refuse(state, "the job is deleted")
      if (state.kind === "stopping") return { state: { ...state, ends: "deleted" }, commands: [{ type: "stop" }] }
      return touched ? stopping(state, "deleted", "deleted", nowMs) : { state: { kind: "deleted", attempts: state.attempts, status: statusOf(state) }, commands: [] }
    case "cancel": {
      const status = statusOf(state)
      if (state.kind === "deleted" || status === "finished" || status === "failed") return refuse(state, `a ${status} job cannot be cancelled`)
      return touched ? stopping(state, "cancelled", "cancelled", nowMs) : { state: { kind: "done", attempts: state.attempts, status: "failed", reason: "cancelled" }, commands: [record("failed", "cancelled")] }
    }
    case "hold":
      if (state.kind === "queued") return { state: { kind: "holding", attempts: state.attempts, from: "queued", onCluster: false, retryAt: state.retryAt, firstAt: state.firstAt, faults: state.faults }, commands: [record("deferred", "held")] }
      if (state.kind === "running") return { state, commands: [{ type: "hold" }] }
      return refuse(state, `a job that is ${state.kind} cannot be held`)
    case "release":
      if (state.kind !== "holding") return refuse(state, `a job that is ${state.kind} cannot be released`)
      if (state.onCluster) return { state, commands: [{ type: "release" }] }
      return { state: { kind: "queued", attempts: state.attempts, retryAt: state.retryAt, firstAt: state.firstAt, faults: state.faults }, commands: [record("queued", "released")] }
    case "setStatus": {
      // Dioptra's status writes, for jobs the service does not drive on the cluster: one never dispatched, or one ended.
      const status = statusOf(state)
      const free = state.kind === "done" || (state.attempts === 0 && (state.kind === "queued" || (state.kind === "holding" && !state.onCluster)))
      if (!free) return refuse(state, `the service drives this job's status while it is ${state.kind}`)
      const next = transition(status, event.change)
      if (next._tag === "Failure") return refuse(state, next.failure.message)
      const to = next.success
      const commands = [record(to)]
      if (state.kind === "done") return { state: { ...state, status: to }, commands }
      if (to === "deferred") return { state: { kind: "holding", attempts: 0, from: "queued", onCluster: false, retryAt: 0, firstAt: null, faults: [] }, commands }
      if (to === "queued") return { state: { kind: "queued", attempts: 0, retryAt: 0, firstAt: null, faults: [] }, commands }
      return { state: { kind: "done", attempts: state.attempts, status: to, reason: null }, commands }
    }
  }
}

const stopAnswer = (state: Extract<DispatchState, { readonly kind: "stopping" }>, event: DispatchEvent, input: DispatchInput): DispatchAnswer => {
  if (event.type === "stopped" && event.gone) {
    if (state.ends === "deleted") return { state: { kind: "deleted", attempts: state.attempts, status: state.status }, commands: [] }
    return { state: { kind: "done", attempts: state.attempts, status: state.status, reason: state.reason }, commands: [] }
  }
  if (event.type === "stopped" || event.type === "stopFailed") {
    // A stop is never given up: the cluster is freed whatever it takes, a refusal tried again at the longest spacing.
    const fault = event.type === "stopFailed" ? event.fault : undefined
    const tries = state.tries + 1
    const delay =
      fault?.verdict === "unknown" && fault.landsBy !== undefined
        ? Math.max(0, fault.landsBy - input.nowMs)
        : retryDelayMs(input.policy, fault?.verdict === "refused" ? Number.MAX_SAFE_INTEGER : tries, input.draw, fault?.retryAfterMs)
    const retryAt = input.nowMs + delay
    return { state: { ...state, tries, retryAt }, commands: [{ type: "retryAt", at: retryAt }] }
  }
  return same(state)
}

/** The machine: the next state and the commands for one event. Events a state does not expect leave it as it is. */
export const step = (state: DispatchState, event: DispatchEvent, input: DispatchInput): DispatchAnswer => {
  if (["cancel", "delete", "hold", "release", "rerun", "setStatus"].includes(event.type)) return userAction(state, event as Parameters<typeof userAction>[1], input)
  switch (state.kind) {
    case "queued":
    case "unknown":
      // Not due yet: a retry waits for its time, and nothing is created while an unanswered create may still land.
      if (event.type !== "claim" || input.nowMs < (state.kind === "unknown" ? state.landsBy : state.retryAt)) return same(state)
      // Any attempt after the first looks first: an earlier one's create may have landed unseen.
      if (state.attempts === 0) return { state: { kind: "starting", attempts: 1, firstAt: input.nowMs, faults: state.faults }, commands: [{ type: "start" }] }
      return { state: { kind: "claimed", attempts: state.attempts + 1, firstAt: state.firstAt ?? input.nowMs, faults: state.faults }, commands: [{ type: "look" }] }
    case "claimed":
      if (event.type === "found") return afterLook(state, event, input)
      if (event.type === "findFailed") return afterFault(state, event.fault, input)
      return attemptAnswer(state, event, input)
    case "starting":
      if (event.type === "startOk") return { state: { ...state, kind: "owned" }, commands: [{ type: "open" }] }
      if (event.type === "startFailed") return afterFault(state, event.fault, input)
      return attemptAnswer(state, event, input)
    case "owned":
      if (event.type === "openOk") return opened(state)
      if (event.type === "openFailed") return afterFault(state, event.fault, input)
      return attemptAnswer(state, event, input)
    case "running":
      if (event.type === "found") return follow(state, event)
      if (event.type === "holdOk") return { state: { kind: "holding", attempts: state.attempts, from: state.status, onCluster: true, retryAt: 0, firstAt: null, faults: [] }, commands: [record("deferred", "held")] }
      return same(state)
    case "holding":
      if (event.type === "releaseOk" && state.onCluster) return { state: { kind: "running", attempts: state.attempts, status: state.from }, commands: [record(state.from, "released")] }
      return same(state)
    case "stopping":
      return stopAnswer(state, event, input)
    case "done":
    case "deleted":
      return same(state)
  }
}

/** A claim taken over (the dispatcher that held it stopped): the next attempt looks first. */
const attemptAnswer = (state: Attempting, event: DispatchEvent, input: DispatchInput): DispatchAnswer => {
  if (event.type === "claim") return { state: { kind: "claimed", attempts: state.attempts + 1, firstAt: state.firstAt, faults: state.faults }, commands: [{ type: "look" }] }
  if (event.type === "unpreparable") return fail(state, event.reason, input.nowMs, state.attempts > 1)
  return same(state)
}
