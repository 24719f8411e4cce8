// The schedule's faults and triggers applied to the calls the simulator's HTTP face receives: each call of the
// service's own work (probes left out) is counted per kind, and the nth of a kind gets the fault or fires the
// trigger the schedule names. Every call is logged with what became of it.
import { statusBody, type ApiRequest, type ApiResponse, type Outcome, type Simulator } from "@dispatch/sim"
import { probeNamePrefix } from "../ClusterWorld.ts"
import { callKindOf, type CallKind, type Fault, type FaultRule, type Trigger } from "./Schedule.ts"

/** Marks the message of every passing fault: a job's reason naming it failed on a fault a retry gets past. */
export const passingMark = "campaign-passing-fault"
/** Marks the message of every refusal (a webhook's denial). */
export const refusalMark = "campaign-refusal"
/** The webhook the refusals name. */
const webhook = "campaign.dispatch.test"
/** How late a slow answer comes, in real ms (well inside the client's call timeout). */
export const delayMs = 100

/** One call the simulator received during a schedule, and what it was made to do. */
export interface LoggedCall {
  readonly request: ApiRequest
  readonly kind: CallKind | undefined
  /** What the caller got. */
  readonly outcome: Outcome
  /** Whether the simulator applied it successfully (whatever the caller got: a dropped answer still applies). */
  readonly applied: boolean
  readonly fault?: Fault
}

// A probe's objects carry JobID zero: its creates name them, its lists select them.
const isProbe = (request: ApiRequest): boolean => {
  const name = request.name ?? String((request.body as { metadata?: { name?: unknown } } | undefined)?.metadata?.name ?? "")
  return name.startsWith(probeNamePrefix) || (request.labelSelector ?? "").includes("00000000000000000000000000")
}

const status = (code: number, reason: string, message: string, retryAfterSeconds?: number): ApiResponse => ({
  code,
  body: statusBody(code, reason, message, retryAfterSeconds === undefined ? undefined : { retryAfterSeconds }),
  ...(retryAfterSeconds === undefined ? {} : { headers: { "Retry-After": String(retryAfterSeconds) } })
})

const answered = (response: ApiResponse): Outcome => ({ kind: "answered", response })

// An answer that never comes is cut (the connection reset with no status line), not held until the client's call
// timeout: the client reads both as unanswered (KubeCluster's tests show it), and a cut costs no real time.
const unanswered: Outcome = { kind: "unanswered", cut: true }

/** What a fault makes of a call; `serve` applies it to the simulator. */
export const faultOutcome = (fault: Fault, request: ApiRequest, serve: () => Outcome): Outcome => {
  switch (fault) {
    case "503":
      return answered(status(503, "ServiceUnavailable", `${passingMark}: the server is currently unable to handle the request`))
    case "429":
      return answered(status(429, "TooManyRequests", `${passingMark}: too many requests`, 1))
    case "409":
      return answered(
        request.verb === "create"
          ? status(409, "AlreadyExists", `${passingMark}: ${request.resource} "${request.name ?? ""}" already exists`)
          : status(409, "Conflict", `${passingMark}: the object has been modified; please apply your changes to the latest version and try again`)
      )
    case "drop": {
      serve()
      return unanswered
    }
    case "lost":
      return unanswered
    case "refuse":
      return { kind: "refused" }
    case "delay": {
      const outcome = serve()
      return outcome.kind === "answered" ? { ...outcome, delayMs } : outcome
    }
    case "webhook-403":
      return answered(status(403, "Forbidden", `admission webhook "${webhook}" denied the request: ${refusalMark}`))
    case "webhook-422":
      return answered(status(422, "Invalid", `admission webhook "${webhook}" denied the request: ${refusalMark}`))
  }
}

/** The faults and triggers of one schedule, armed or not. */
export class FaultInjection {
  private counts = new Map<CallKind, number>()
  private faults: ReadonlyArray<FaultRule> = []
  private triggers: ReadonlyArray<Trigger> = []
  private armed = false
  /** Every call of the current schedule. */
  calls: Array<LoggedCall> = []

  constructor(
    private readonly sim: Simulator,
    private readonly namespace: string,
    private readonly fire: (trigger: Trigger["then"]) => void
  ) {}

  /** Starts a schedule: its faults and triggers apply from the next call, counted from one. */
  arm(faults: ReadonlyArray<FaultRule>, triggers: ReadonlyArray<Trigger>): void {
    this.counts = new Map()
    this.faults = faults
    this.triggers = triggers
    this.calls = []
    this.armed = true
  }

  /** Stops injecting; calls are still logged. */
  disarm(): void {
    this.armed = false
  }

  /** Serves one call the HTTP face received. */
  handle(request: ApiRequest): Outcome {
    let applied = false
    const serve = () => {
      const outcome = this.sim.handle(request)
      applied = outcome.kind === "answered" && outcome.response.code < 300
      return outcome
    }
    const kind = request.namespace === this.namespace && !isProbe(request) ? callKindOf(request.verb, request.resource) : undefined
    if (!this.armed || kind === undefined) {
      const outcome = serve()
      this.calls.push({ request, kind, outcome, applied })
      return outcome
    }
    const nth = (this.counts.get(kind) ?? 0) + 1
    this.counts.set(kind, nth)
    const kill = this.triggers.find((t) => t.call === kind && t.nth === nth && t.then.kind === "kill")
    for (const t of this.triggers) if (t.call === kind && t.nth === nth && t.then.kind === "act") this.fire(t.then)
    const rule = this.faults.find((f) => f.call === kind && f.nth === nth)
    let outcome: Outcome
    if (kill !== undefined && kill.then.kind === "kill") {
      // The process dies with this call on the wire: it lands or not, and either way no one hears the answer.
      this.fire(kill.then)
      if (kill.then.landed) serve()
      outcome = unanswered
    } else outcome = rule === undefined ? serve() : faultOutcome(rule.fault, request, serve)
    this.calls.push({ request, kind, outcome, applied, ...(rule === undefined || kill !== undefined ? {} : { fault: rule.fault }) })
    return outcome
  }
}
