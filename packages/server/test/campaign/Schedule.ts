// A campaign schedule: what users do, which cluster calls fault and how, and when the service dies, as plain
// JSON data, so that a failing one can be printed, shrunk by fast-check and replayed as a test.
import fc from "fast-check"

/** The kind of queue a job is created on. */
export type QueueKind = "plain" | "kueue"

/** The cluster calls of the service's own work, each named for the step that makes it (non-probe calls only). */
export const callKinds = [
  /** Start step 2: the source runtime's read. */
  "read-runtime",
  /** Start step 5: the runtime copy's create. */
  "create-copy",
  /** Start step 6: the TrainJob's create. */
  "create-trainjob",
  /** Start step 7 ("own"): the copy's owner patch. */
  "own",
  /** Start step 8: the TrainJob's read-back (and any read of a TrainJob by name, such as Find's). */
  "read-back",
  /** Open, hold, release and Stop's suspend: patches of the TrainJob. */
  "patch-trainjob",
  /** Find and status sync: lists of TrainJobs. */
  "sync",
  /** Stop: the TrainJob's delete. */
  "stop",
  /** Clean-up and the sweeper: the copy's delete. */
  "delete-copy",
  /** The sweeper: lists of runtime copies. */
  "sweep",
  /** Kueue mode: reads and patches of the Workload. */
  "workload"
] as const
/** One kind of cluster call. */
export type CallKind = (typeof callKinds)[number]

/** Calls that write what a job is made of, where an admission webhook may deny the request. */
export const admittedCalls = ["create-copy", "create-trainjob", "own"] as const satisfies ReadonlyArray<CallKind>

/** Faults that a retry of the same request gets past: they must never fail a job. */
export const passingFaults = ["503", "429", "drop", "lost", "refuse", "409", "delay"] as const
/** Faults the same request gets again (a webhook's denial): a job may fail on them, naming them. */
export const refusalFaults = ["webhook-403", "webhook-422"] as const
/** What a fault does to one call. `drop`: applied, never answered; `lost`: not applied, never answered (the
 * request timed out before reaching the server); `refuse`: connection refused; `delay`: applied, answered late. */
export type Fault = (typeof passingFaults)[number] | (typeof refusalFaults)[number]

/** The nth call (1-based, counted per kind within the schedule) of a kind gets a fault. */
export interface FaultRule {
  readonly call: CallKind
  readonly nth: number
  readonly fault: Fault
}

/** A user's action on the job created by the `job`th create (modulo the jobs created so far). */
export interface Action {
  readonly kind: "cancel" | "delete" | "rerun"
  readonly job: number
}

/** One step of a schedule, run in order; `pass` is one dispatcher pass, awaited. */
export type Step =
  | { readonly kind: "create"; readonly queue: QueueKind }
  | { readonly kind: "pass" }
  /** Moves the service's clock (and the simulator's) forward by `ms`. */
  | { readonly kind: "tick"; readonly ms: number }
  | { readonly kind: "act"; readonly action: Action }
  /** The service is killed between steps and a new one starts on the same database. */
  | { readonly kind: "restart" }

/** Something that happens the moment the nth call of a kind arrives at the cluster: the service dies (the call
 * landing or not), or a user acts while the call is in flight. */
export interface Trigger {
  readonly call: CallKind
  readonly nth: number
  readonly then: { readonly kind: "kill"; readonly landed: boolean } | { readonly kind: "act"; readonly action: Action }
}

/** One schedule of the campaign. */
export interface Schedule {
  readonly steps: ReadonlyArray<Step>
  readonly faults: ReadonlyArray<FaultRule>
  readonly triggers: ReadonlyArray<Trigger>
}

const queueKind = fc.constantFrom<QueueKind>("plain", "kueue")
const action: fc.Arbitrary<Action> = fc.record({ kind: fc.constantFrom("cancel", "delete", "rerun"), job: fc.nat({ max: 5 }) })
const call = fc.constantFrom(...callKinds)
const nth = fc.integer({ min: 1, max: 4 })

const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant("create" as const), queue: queueKind }), weight: 3 },
  { arbitrary: fc.constant({ kind: "pass" as const }), weight: 5 },
  { arbitrary: fc.record({ kind: fc.constant("tick" as const), ms: fc.integer({ min: 1, max: 5000 }) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant("act" as const), action }), weight: 2 },
  { arbitrary: fc.constant({ kind: "restart" as const }), weight: 1 }
)

const faultRule: fc.Arbitrary<FaultRule> = fc.oneof(
  { arbitrary: fc.record({ call, nth, fault: fc.constantFrom(...passingFaults) }), weight: 4 },
  { arbitrary: fc.record({ call: fc.constantFrom(...admittedCalls), nth, fault: fc.constantFrom(...refusalFaults) }), weight: 1 }
)

const trigger: fc.Arbitrary<Trigger> = fc.record({
  call,
  nth,
  then: fc.oneof(fc.record({ kind: fc.constant("kill" as const), landed: fc.boolean() }), fc.record({ kind: fc.constant("act" as const), action }))
})

/** Schedules: a job created first, then up to 14 steps, up to 6 faults and up to 2 triggers. */
export const scheduleArbitrary: fc.Arbitrary<Schedule> = fc.record({
  steps: fc.tuple(queueKind, fc.array(step, { maxLength: 14 })).map(([queue, rest]): ReadonlyArray<Step> => [{ kind: "create", queue }, ...rest]),
  faults: fc.array(faultRule, { maxLength: 6 }),
  triggers: fc.array(trigger, { maxLength: 2 })
})

// Which kind each call of the service's own objects is, by resource and verb.
const kindsByResource: Readonly<Record<string, Readonly<Record<string, CallKind>>>> = {
  trainingruntimes: { get: "read-runtime", create: "create-copy", patch: "own", update: "own", delete: "delete-copy", list: "sweep" },
  trainjobs: { create: "create-trainjob", get: "read-back", patch: "patch-trainjob", update: "patch-trainjob", list: "sync", delete: "stop" }
}

/** The kind of a cluster call by its verb and resource, or undefined for one no fault targets. */
export const callKindOf = (verb: string, resource: string): CallKind | undefined =>
  resource === "workloads" ? "workload" : kindsByResource[resource]?.[verb]
