// The model-based fault campaign: random requests against random fault plans (transient faults, and the
// cluster's definite refusals: 409, a webhook's 403, 422, 404), concurrent writers editing or deleting
// the TrainJob, the copy or the Workload between calls, Trainer's finalizer, Kueue suspending and
// requeueing, and one, two or three Starts of the request at once. After every attempt the invariants are
// read from the simulator's store and the calls each Start made; then the faults stop and a retry must
// converge; then the job may be opened and its source runtime edited, deleted or dropped, and retries
// must keep returning it. Time is the TestClock's, so a case costs the same on a slow machine.
import fc from "fast-check"
import { Effect, Exit, Layer, Result } from "effect"
import { describe, expect, it } from "vitest"
import { type BackendConfig, compareReadBack, decodeStartRequest, renderStart, admissionGateName } from "@dispatch/render"
import { type ApiRequest, type FaultRule, type KubeObject, type Outcome, randomFaultPlan } from "@dispatch/sim"
import { type Backend } from "../../src/Backend.ts"
import { InFlight, type InFlightShape, makeInFlight } from "../../src/InFlight.ts"
import { SimCluster, type SimulatorFace } from "@dispatch/sim/cluster"
import { start, type StartResult } from "../../src/Start.ts"
import { isPassing, type StartError } from "../../src/StartErrors.ts"
import { admissionGatedBy, parseAdmissionGates } from "@dispatch/kube"
import { jobUidLabel } from "../../src/WorkloadReadiness.ts"
import { backendOf, configOf, namespace, openInStore, requestOf, runOnTestClock, simOf, torchRuntime, trainJobNameOf } from "../StartFixture.ts"

/** How many cases a run checks: 120 by default (about 25 s with both cores several times oversubscribed: TestClock fixes each
 * case's work, not its speed); DISPATCH_CAMPAIGN_CASES asks for more on a deep run. */
export const campaignCases = Number(process.env["DISPATCH_CAMPAIGN_CASES"] ?? 120)

type Mode = "plain" | "kueue"
type Expectation = "success" | "ErrInvalid" | "ErrUnsupported"

const shapes = [
  { label: "cluster runtime", options: {}, expect: "success", source: ["clustertrainingruntimes", "torch-distributed"] },
  { label: "namespaced runtime", options: { kind: "TrainingRuntime", runtime: "team-torch" }, expect: "success", source: ["trainingruntimes", "team-torch"] },
  { label: "runtime not configured", options: { runtime: "unlisted" }, expect: "ErrUnsupported", source: undefined },
  { label: "runtime missing", options: { runtime: "absent-runtime" }, expect: "ErrUnsupported", source: undefined },
  { label: "empty command", options: { command: [] }, expect: "ErrInvalid", source: undefined }
] as const

const callMs = 1_000
const configs: Record<Mode, BackendConfig> = {
  plain: configOf("plain", { timeouts: { call: 1, workload: 30, callBound: 60 } }),
  kueue: configOf("kueue", { timeouts: { call: 1, workload: 30, callBound: 60 } })
}
const kueueControllers = { kueue: { queues: { "team-queue": { admissionChecks: ["dispatch-check"] } } } }
const trainerFinalizer = "trainer.kubeflow.org/resource-in-use"
/** A finalizer another controller holds a TrainJob with while it is being deleted. */
const heldFinalizer = "example.com/keep"
const webhookDenial = 'admission webhook "policy.example.com" denied the request: not on this cluster'

/** The cluster's definite refusals, which the random plan never injects. */
const definiteActions = {
  conflict: { type: "status", code: 409, message: "campaign: the object has been modified" },
  webhook: { type: "status", code: 403, message: webhookDenial },
  invalid: { type: "status", code: 422, message: "campaign: the object is invalid" },
  notFound: { type: "status", code: 404, message: "campaign: not found" }
} as const

/** What another writer does between two of Start's calls (through the store, not through Start's face). */
const writerActions = ["edit-trainjob", "delete-trainjob", "hold-and-delete-trainjob", "suspend-trainjob", "edit-copy", "delete-copy", "delete-workload", "requeue-workload"] as const
type WriterAction = (typeof writerActions)[number]

/** What a user does to the source runtime once the job has succeeded. */
const sourceChanges = ["none", "edit", "delete", "drop"] as const

/** One call, which Start made it, and what became of it. */
interface Logged {
  readonly start: number
  readonly request: ApiRequest
  readonly outcome: Outcome
}

/** Something a writer did, and when (the number of calls logged before it). */
interface WriterEvent {
  readonly at: number
  readonly action: WriterAction
  /** The copy's UID when the writer acted, and whether a TrainJob owned it then. */
  readonly copyUid?: unknown
  readonly copyOwned?: boolean
}

const metaOf = (object: KubeObject | undefined): Record<string, unknown> => object?.metadata ?? {}
const uidOf = (object: KubeObject | undefined): unknown => metaOf(object)["uid"]
const ownersOf = (object: KubeObject | undefined): ReadonlyArray<Record<string, unknown>> =>
  (metaOf(object)["ownerReferences"] as ReadonlyArray<Record<string, unknown>> | undefined) ?? []
const bodyOf = (outcome: Outcome): Record<string, unknown> | undefined =>
  outcome.kind === "answered" && outcome.response.code < 300 ? (outcome.response.body as Record<string, unknown>) : undefined
/** The write was applied: answered with success, or applied with its answer lost. */
const applied = (outcome: Outcome): boolean => outcome.kind === "unanswered" || (outcome.kind === "answered" && outcome.response.code < 300)
const isCall = (entry: Logged, verb: string, resource: string): boolean => entry.request.verb === verb && entry.request.resource === resource
const preconditionsOf = (entry: Logged): Record<string, unknown> =>
  ((entry.request.body as Record<string, unknown> | undefined)?.["preconditions"] as Record<string, unknown> | undefined) ?? {}

/** A call the fault plan changed: nothing the simulator answers on its own looks like these. */
const faulted = (entry: Logged): boolean => {
  const outcome = entry.outcome
  if (outcome.kind !== "answered") return true
  if ((outcome.delayMs ?? 0) > 0) return true
  const message = (outcome.response.body as { message?: unknown } | undefined)?.message
  return [429, 500, 503, 504].includes(outcome.response.code) || message === webhookDenial || (typeof message === "string" && message.startsWith("campaign:"))
}

const unanswered = (entry: Logged): boolean =>
  entry.outcome.kind === "unanswered" || (entry.outcome.kind === "answered" && ((entry.outcome.delayMs ?? 0) >= callMs || entry.outcome.response.code === 504))

const tagOf = (exit: Exit.Exit<StartResult, StartError>): string => {
  if (Exit.isSuccess(exit)) return "success"
  const failure = exit.cause.reasons.find((r) => r._tag === "Fail")
  if (failure?._tag !== "Fail") return `defect: ${String(exit.cause)}`
  // A refusal a passing fault may have decided (the frozen runtime unread) is no verdict on the request.
  return failure.error._tag === "ErrUnsupported" && isPassing(failure.error) ? "ErrUnsupported+passing" : failure.error._tag
}

/** One case's cluster: the simulator, Start's calls by Start, the writers and Trainer's finalizer. */
class World {
  readonly recorded: ReturnType<typeof simOf>
  readonly log: Array<Logged> = []
  readonly events: Array<WriterEvent> = []
  private writers: Array<{ at: number; action: WriterAction }>
  private calls = 0

  constructor(
    readonly name: string,
    readonly mode: Mode,
    seed: number,
    faults: ReadonlyArray<FaultRule>,
    writers: ReadonlyArray<{ at: number; action: WriterAction }>,
    readonly trainer: boolean
  ) {
    this.recorded = simOf({ seed, objects: [torchRuntime("unlisted")], faults, ...(mode === "kueue" ? { controllers: kueueControllers } : {}) })
    this.writers = [...writers]
  }

  get store() {
    return this.recorded.sim.system
  }

  /** A TrainJob stands on a copy being deleted: an earlier stop did not finish. */
  stopUnfinished(): boolean {
    const copy = this.store.get("trainingruntimes", namespace, this.name)
    return metaOf(copy)["deletionTimestamp"] !== undefined && this.store.get("trainjobs", namespace, this.name) !== undefined
  }

  /** What the supervisor does for an unfinished stop: Find, then Stop (delete the TrainJob). */
  finishStop(): void {
    if (this.stopUnfinished()) this.store.delete("trainjobs", namespace, this.name, "Background")
  }

  /** Stops the faults and the writers; a TrainJob a writer held while deleting it goes. */
  calm(faults: ReadonlyArray<FaultRule> = []): void {
    this.recorded.sim.setFaults(faults)
    this.writers = []
    const job = this.store.get("trainjobs", namespace, this.name)
    if (job !== undefined && ((metaOf(job)["finalizers"] as ReadonlyArray<string> | undefined) ?? []).includes(heldFinalizer)) {
      this.store.update("trainjobs", { ...job, metadata: { ...job.metadata, finalizers: [] } })
    }
  }

  faceOf(start: number): SimulatorFace {
    const base = this.recorded.face
    return {
      now: () => base.now(),
      advanceTo: (ms) => base.advanceTo(ms),
      handle: (request) => {
        this.calls++
        for (const w of this.writers.filter((w) => w.at === this.calls)) this.write(w.action)
        if (this.trainer) this.releaseFinalizers()
        const outcome = this.recorded.sim.handle(request)
        this.log.push({ start, request, outcome })
        // Trainer (v2.0-2.2) adds its finalizer to a runtime as soon as a TrainJob references it.
        if (this.trainer && request.verb === "create" && request.resource === "trainjobs" && applied(outcome)) this.holdCopy()
        return outcome
      }
    }
  }

  private holdCopy(): void {
    const copy = this.store.get("trainingruntimes", namespace, this.name)
    if (copy === undefined || metaOf(copy)["deletionTimestamp"] !== undefined) return
    this.store.update("trainingruntimes", { ...copy, metadata: { ...copy.metadata, finalizers: [trainerFinalizer] } })
  }

  /** Trainer drops its finalizer once no TrainJob references the runtime. */
  private releaseFinalizers(): void {
    const copy = this.store.get("trainingruntimes", namespace, this.name)
    if (copy === undefined || this.store.get("trainjobs", namespace, this.name) !== undefined) return
    if (((metaOf(copy)["finalizers"] as ReadonlyArray<string> | undefined) ?? []).length === 0) return
    this.store.update("trainingruntimes", { ...copy, metadata: { ...copy.metadata, finalizers: [] } })
  }

  private write(action: WriterAction): void {
    const job = this.store.get("trainjobs", namespace, this.name)
    const copy = this.store.get("trainingruntimes", namespace, this.name)
    const workload = job === undefined ? undefined : this.store.list("workloads", namespace, `${jobUidLabel}=${String(uidOf(job))}`)[0]
    const spec = (o: KubeObject) => (o["spec"] ?? {}) as Record<string, unknown>
    const done = (): void => void this.events.push({ at: this.log.length, action, copyUid: uidOf(copy), copyOwned: ownersOf(copy).length > 0 })
    switch (action) {
      case "edit-trainjob":
        if (job === undefined) return
        this.store.update("trainjobs", { ...job, spec: { ...spec(job), trainer: { ...(spec(job)["trainer"] as object), image: "registry.example/other:9" } } })
        return done()
      case "delete-trainjob":
        if (job === undefined) return
        this.store.delete("trainjobs", namespace, this.name, "Background")
        return done()
      case "hold-and-delete-trainjob": {
        // Deleted behind a finalizer: it stays, being deleted, until the faults stop.
        if (job === undefined) return
        const held = this.store.update("trainjobs", { ...job, metadata: { ...job.metadata, finalizers: [heldFinalizer] } }).body as KubeObject
        void held
        this.store.delete("trainjobs", namespace, this.name, "Background")
        return done()
      }
      case "suspend-trainjob":
        // Kueue suspends a job it evicts; a gated job is suspended already, so only its version moves.
        if (job === undefined) return
        this.store.update("trainjobs", { ...job, metadata: { ...job.metadata, annotations: { ...(metaOf(job)["annotations"] as object), "example.com/touched": "1" } }, spec: { ...spec(job), suspend: true } })
        return done()
      case "edit-copy":
        if (copy === undefined) return
        this.store.update("trainingruntimes", { ...copy, spec: { ...spec(copy), mlPolicy: { numNodes: 5, torch: {} } } })
        return done()
      case "delete-copy":
        if (copy === undefined) return
        this.store.delete("trainingruntimes", namespace, this.name, "Background")
        return done()
      case "delete-workload":
        if (workload === undefined) return
        this.store.delete("workloads", namespace, String(metaOf(workload)["name"]), "Background")
        return done()
      case "requeue-workload": {
        // Kueue requeues an evicted Workload: its status moves, dispatch's gate stays.
        if (workload === undefined) return
        const status = (workload["status"] ?? {}) as Record<string, unknown>
        const conditions = [...((status["conditions"] as ReadonlyArray<unknown> | undefined) ?? []), { type: "Requeued", status: "True", reason: "Evicted", message: "requeued", lastTransitionTime: "2026-01-01T00:00:00Z" }]
        this.store.updateStatus("workloads", { ...workload, status: { ...status, conditions } })
        return done()
      }
    }
  }
}

/** Runs `count` Starts of `request` at once on one TestClock; each records its calls under its index. */
const runAttempt = async (
  world: World,
  backend: Backend,
  request: unknown,
  count: number,
  inFlight: InFlightShape,
  first: number
): Promise<{ exits: ReadonlyArray<Exit.Exit<StartResult, StartError>>; finishedAt: ReadonlyArray<number> }> => {
  const finishedAt: Array<number> = []
  const exit = await runOnTestClock(
    Effect.all(
      Array.from({ length: count }, (_, i) =>
        start(backend, request).pipe(
          Effect.provide(Layer.merge(SimCluster(world.faceOf(first + i), { callMs: backend.config.timeouts.callMs }), Layer.succeed(InFlight, inFlight))),
          Effect.exit,
          Effect.tap(() => Effect.sync(() => void (finishedAt[i] = world.log.length)))
        )
      ),
      { concurrency: "unbounded" }
    )
  )
  if (!Exit.isSuccess(exit)) throw new Error(`the Starts did not finish: ${String(exit.cause)}`)
  return { exits: exit.value, finishedAt }
}

/** What render writes for the request, given the source as it was at the first Start. */
const renderedJob = (request: unknown, config: BackendConfig, source: KubeObject): KubeObject => {
  const decoded = decodeStartRequest(request)
  if (Result.isFailure(decoded)) throw new Error("the campaign's request does not decode")
  const rendered = renderStart(decoded.success, config, source)
  if (Result.isFailure(rendered)) throw new Error(`render refuses the campaign's request: ${rendered.failure.reasons.join("; ")}`)
  return rendered.success.trainJob
}

/** The invariants on the calls each Start made: deletes only with uid preconditions, a TrainJob deleted
 * only by the Start whose create returned it, and never one some Start returned success for. */
const checkDeletes = (log: ReadonlyArray<Logged>, won: ReadonlySet<unknown>): void => {
  const createdBy = new Map<number, Set<unknown>>()
  for (const entry of log) {
    if (isCall(entry, "create", "trainjobs")) {
      const body = bodyOf(entry.outcome)
      if (body !== undefined) createdBy.set(entry.start, new Set([...(createdBy.get(entry.start) ?? []), uidOf(body as KubeObject)]))
    }
    if (entry.request.verb !== "delete") continue
    const uid = preconditionsOf(entry)["uid"]
    expect(uid, `${entry.request.resource} deleted without a uid precondition`).toBeDefined()
    if (entry.request.resource !== "trainjobs") continue
    expect(createdBy.get(entry.start)?.has(uid), `Start ${entry.start} deleted TrainJob ${String(uid)}, which it did not create`).toBe(true)
    if (applied(entry.outcome)) expect(won.has(uid), `TrainJob ${String(uid)} was deleted after a Start returned success for it`).toBe(false)
  }
}

const touches: Record<"trainjob" | "copy" | "workload", ReadonlyArray<WriterAction>> = {
  trainjob: ["edit-trainjob", "delete-trainjob", "hold-and-delete-trainjob", "suspend-trainjob"],
  copy: ["edit-copy", "delete-copy", "delete-trainjob", "hold-and-delete-trainjob"],
  workload: ["delete-workload", "requeue-workload", "delete-trainjob", "hold-and-delete-trainjob"]
}

/** The calls after which Start answers for each kind of object: its read-back (any call but its wait for
 * the Workload) for the TrainJob, its last call on the copy for the copy, its last call for the Workload. */
const looksAt: Record<keyof typeof touches, (e: Logged) => boolean> = {
  trainjob: (e) => e.request.resource !== "workloads",
  copy: (e) => e.request.resource === "trainingruntimes",
  workload: () => true
}

/** A writer changed this kind of object after Start last looked at it: what the store holds then is the
 * writer's doing. Anything changed before, Start's read-back and step 7 answer for. */
const changedSince = (world: World, id: number, what: keyof typeof touches, returnedAt: number): boolean => {
  let lastLook = -1
  world.log.forEach((e, i) => {
    if (e.start === id && looksAt[what](e) && i < returnedAt) lastLook = i
  })
  return world.events.some((e) => e.at > lastLook && touches[what].includes(e.action))
}

/** What a successful Start says is in the store, where no writer changed it after Start's last look. */
const checkSuccess = (world: World, config: BackendConfig, expectedJob: KubeObject, sourceSpec: unknown, result: StartResult, id: number, returnedAt: number, opened: boolean): void => {
  if (!changedSince(world, id, "trainjob", returnedAt)) {
    const job = world.store.get("trainjobs", namespace, world.name)
    expect(uidOf(job), "the TrainJob Start returned is there").toBe(result.uid)
    expect(metaOf(job)["deletionTimestamp"], "and not being deleted").toBeUndefined()
    expect(compareReadBack(expectedJob, job, config, { adopted: true }), "labels, annotations and spec are render's").toEqual([])
    if (config.mode === "plain") expect((job?.["spec"] as Record<string, unknown>)["suspend"] === true, "plain: spec.suspend is the gate").toBe(result.gateClosed)
  }
  if (!changedSince(world, id, "copy", returnedAt)) {
    const copy = world.store.get("trainingruntimes", namespace, world.name)
    expect(ownersOf(copy).map((o) => o["uid"]), "the copy is owned by the TrainJob").toEqual([result.uid])
    // A copy a writer edited once a TrainJob owned it stays edited, and is the job's runtime from then
    // on; one edited before that must never be used.
    if (!world.events.some((e) => e.action === "edit-copy" && e.copyUid === uidOf(copy) && e.copyOwned === true)) expect(copy?.["spec"], "the copy is the source as it was at the first Start").toEqual(sourceSpec)
    expect(metaOf(copy)["deletionTimestamp"]).toBeUndefined()
  }
  if (result.created || !opened) expect(result.gateClosed, "the gate is closed after Start").toBe(true)
  if (config.mode === "kueue" && !changedSince(world, id, "workload", returnedAt)) {
    const gates = world.store.list("workloads", namespace, `${jobUidLabel}=${result.uid}`).map((w) => parseAdmissionGates((metaOf(w)["annotations"] as Record<string, string> | undefined)?.[admissionGatedBy]))
    expect(gates.some((g) => g.includes(admissionGateName(config))), "Kueue: a Workload carries the gate").toBe(result.gateClosed)
  }
}

/** After an attempt whose Starts all failed definitely, no copy one of them created is left without an
 * owner (or a TrainJob of its name, which keeps the copy it runs on). */
const checkNoLeakedCopy = (world: World, attemptLog: ReadonlyArray<Logged>, tags: ReadonlyArray<string>): void => {
  if (!tags.every((t) => t === "ErrRejected" || t === "ErrInvalid" || t === "ErrUnsupported")) return
  const created = attemptLog.filter((e) => isCall(e, "create", "trainingruntimes")).flatMap((e) => {
    const body = bodyOf(e.outcome)
    return body === undefined ? [] : [uidOf(body as KubeObject)]
  })
  const copy = world.store.get("trainingruntimes", namespace, world.name)
  if (copy === undefined || !created.includes(uidOf(copy)) || metaOf(copy)["deletionTimestamp"] !== undefined) return
  const kept = ownersOf(copy).length > 0 || world.store.get("trainjobs", namespace, world.name) !== undefined
  expect(kept, `the copy this attempt created leaked after ${tags.join(", ")}`).toBe(true)
}

/** Every result is one the seed allows for what happened in this attempt. */
const checkTags = (
  tags: ReadonlyArray<string>,
  expected: Expectation,
  disturbed: { now: boolean; ever: boolean; stopUnfinished: boolean }
): void => {
  tags.forEach((tag) => {
    expect(tag.startsWith("defect"), tag).toBe(false)
    if (tag === "success" || tag === "ErrInvalid" || tag === "ErrUnsupported") expect(tag).toBe(expected)
    if (tag === "ErrUnreachable" || tag === "ErrUnsupported+passing" || (tag === "ErrOutcomeUnknown" && !disturbed.stopUnfinished)) {
      expect(disturbed.now, `${tag} with no fault and no other writer`).toBe(true)
    }
    if (tag === "ErrRejected") expect(disturbed.ever, "ErrRejected with no fault and no other writer").toBe(true)
    expect(tag).not.toBe("ErrReadOnly")
  })
}

/** The per-Start rules on unanswered creates: a copy create unanswered is ErrUnreachable and no TrainJob
 * create follows; a TrainJob create unanswered is ErrOutcomeUnknown. */
const checkUnanswered = (attemptLog: ReadonlyArray<Logged>, starts: ReadonlyArray<number>, tags: ReadonlyArray<string>): void => {
  starts.forEach((id, i) => {
    const own = attemptLog.filter((e) => e.start === id)
    const copyCreate = own.find((e) => isCall(e, "create", "trainingruntimes"))
    if (copyCreate !== undefined && unanswered(copyCreate)) {
      expect(tags[i]).toBe("ErrUnreachable")
      expect(own.some((e) => isCall(e, "create", "trainjobs"))).toBe(false)
    }
    const jobCreate = own.find((e) => isCall(e, "create", "trainjobs"))
    if (jobCreate !== undefined && unanswered(jobCreate)) expect(tags[i]).toBe("ErrOutcomeUnknown")
  })
}

/** Store-wide: one TrainJob at most; until the test opens it, never unsuspended, no Workload admitted,
 * the gate kept. */
const checkStore = (world: World, opened: boolean): void => {
  const jobs = world.store.list("trainjobs", namespace)
  expect(jobs.length).toBeLessThanOrEqual(1)
  if (opened) return
  for (const job of jobs) expect((job["spec"] as Record<string, unknown>)["suspend"], "no TrainJob unsuspended").toBe(true)
  if (world.mode !== "kueue") return
  for (const workload of world.store.list("workloads", namespace)) {
    expect(parseAdmissionGates((metaOf(workload)["annotations"] as Record<string, string> | undefined)?.[admissionGatedBy]), "the start gate stays").toContain(admissionGateName(configs.kueue))
    expect((workload["status"] as Record<string, unknown> | undefined)?.["admission"], "no Workload admitted").toBeUndefined()
  }
}

const definiteRule = fc.record({
  // Creates twice as often: a definite create failure is where a copy can leak.
  verb: fc.constantFrom("create" as const, "create" as const, "patch" as const, "delete" as const, "get" as const),
  resource: fc.constantFrom("trainingruntimes", "trainjobs"),
  nth: fc.integer({ min: 1, max: 3 }),
  action: fc.constantFrom(...Object.keys(definiteActions)) as fc.Arbitrary<keyof typeof definiteActions>
})

const caseArbitrary = fc.record({
  seed: fc.integer({ min: 1, max: 1_000_000 }),
  job: fc.integer({ min: 1, max: 200 }),
  submission: fc.integer({ min: 1, max: 3 }),
  // The refusals need few cases; the runtimes that start carry the races.
  shape: fc.oneof({ arbitrary: fc.constantFrom(shapes[0], shapes[1]), weight: 4 }, { arbitrary: fc.constantFrom(shapes[2], shapes[3], shapes[4]), weight: 1 }),
  mode: fc.constantFrom("plain" as const, "kueue" as const),
  rate: fc.constantFrom(0, 0.05, 0.15, 0.3),
  spec: fc.record({
    env: fc.dictionary(fc.stringMatching(/^X[A-Z0-9_]{0,6}$/), fc.string({ maxLength: 12 }).filter((v) => !v.includes("\u0000")), { maxKeys: 3 }),
    nodes: fc.integer({ min: 1, max: 4 }),
    image: fc.constantFrom("registry.example/train:1", "registry.example/train:2")
  }),
  definite: fc.array(definiteRule, { maxLength: 3 }),
  writers: fc.array(fc.record({ at: fc.integer({ min: 1, max: 14 }), action: fc.constantFrom(...writerActions) }), { maxLength: 2 }),
  // The creator's owner patch answered late (at or after the call timeout: unanswered) while the others
  // adopt, and one of the TrainJob reads failing: the race of concurrent Starts.
  late: fc.option(fc.record({ ms: fc.oneof(fc.integer({ min: 200, max: 999 }), fc.integer({ min: 1_000, max: 2_500 })), failedRead: fc.integer({ min: 1, max: 4 }) }), { freq: 2 }),
  together: fc.constantFrom(1, 2, 2, 3),
  trainer: fc.boolean(),
  opened: fc.boolean(),
  sourceChange: fc.constantFrom(...sourceChanges)
})

/** One case, start to end. */
type Case = typeof caseArbitrary extends fc.Arbitrary<infer T> ? T : never

const runCase = async (c: Case): Promise<void> => {
  const name = trainJobNameOf(c.job, c.submission)
  // A real server answers 404 to a read, patch or delete only when the object is gone (the writers do
  // that for real); injected on an object that exists it would be a lie no client can survive, so
  // injected 404s go to creates (a missing namespace).
  const definite: ReadonlyArray<FaultRule> = c.definite
    .filter((d) => d.action !== "notFound" || d.verb === "create")
    .map((d) => ({ verb: d.verb, resource: d.resource, name, nth: d.nth, action: definiteActions[d.action] }))
  // Definite refusals first, so that a rule of both plans matching one call is the definite one.
  const late: ReadonlyArray<FaultRule> =
    c.late === null
      ? []
      : [
          { verb: "patch", resource: "trainingruntimes", name, nth: 1, action: { type: "delay", ms: c.late.ms } },
          { verb: "get", resource: "trainjobs", name, nth: c.late.failedRead, action: { type: "status", code: 500 } }
        ]
  const faults = [...definite, ...late, ...randomFaultPlan(c.seed, { rate: c.rate })]
  const world = new World(name, c.mode, c.seed, faults, c.writers, c.trainer)
  const config = configs[c.mode]
  const backend = backendOf(config)
  const request = requestOf(c.job, { submission: c.submission, ...c.spec, ...c.shape.options })
  const expected: Expectation = c.shape.expect
  const source = c.shape.source === undefined ? undefined : c.shape.source[0] === "trainingruntimes" ? world.store.get("trainingruntimes", namespace, c.shape.source[1]) : world.store.get("clustertrainingruntimes", undefined, c.shape.source[1])
  const expectedJob = source === undefined ? undefined : renderedJob(request, config, source)
  const inFlight = makeInFlight()
  const won = new Set<unknown>()
  let starts = 0
  let disturbedEver = false

  /** Runs one attempt of `count` Starts and checks every invariant; returns the results. */
  const attempt = async (count: number, opened: boolean, onConfig: BackendConfig = config) => {
    const from = world.log.length
    const eventsFrom = world.events.length
    const ids = Array.from({ length: count }, (_, i) => starts + i)
    const { exits, finishedAt } = await runAttempt(world, backendOf(onConfig), request, count, inFlight, starts)
    starts += count
    const attemptLog = world.log.slice(from)
    const tags = exits.map(tagOf)
    if (process.env["CAMPAIGN_DEBUG"]) console.log(tags, exits.map((e) => (Exit.isFailure(e) ? JSON.stringify(e.cause).slice(0, 600) : "")), attemptLog.map((e) => `${e.start} ${e.request.verb} ${e.request.resource} ${e.outcome.kind === "answered" ? e.outcome.response.code : e.outcome.kind}`))
    const disturbedNow = attemptLog.some(faulted) || world.events.length > eventsFrom
    // A stop that deleted the copy but not the TrainJob (ErrOutcomeUnknown then) stays unfinished until
    // someone Stops the TrainJob; every Start says so meanwhile.
    const stopUnfinished = world.stopUnfinished()
    disturbedEver ||= disturbedNow
    exits.forEach((exit) => Exit.isSuccess(exit) && won.add(exit.value.uid))
    checkDeletes(world.log, won)
    checkTags(tags, expected, { now: disturbedNow, ever: disturbedEver, stopUnfinished })
    checkUnanswered(attemptLog, ids, tags)
    checkNoLeakedCopy(world, attemptLog, tags)
    checkStore(world, opened)
    const created = exits.flatMap((e) => (Exit.isSuccess(e) && e.value.created ? [e.value.uid] : []))
    expect(new Set(created).size, "one Start at most created each TrainJob").toBe(created.length)
    exits.forEach((exit, i) => {
      if (Exit.isSuccess(exit) && expectedJob !== undefined && source !== undefined) {
        checkSuccess(world, config, expectedJob, source["spec"], exit.value, ids[i]!, finishedAt[i] ?? 0, opened)
      }
    })
    return { exits, tags }
  }

  let last: ReadonlyArray<string> = []
  for (let i = 0; i < 5; i++) {
    last = (await attempt(c.together, false)).tags
    if (last.some((t) => t === "success" || t === "ErrInvalid" || t === "ErrUnsupported")) break
  }
  // Faults and writers off: a retry converges to the expected result. What a writer changed may stand in
  // the way for good: a TrainJob it edited, or a copy it edited with no TrainJob to own it (ErrRejected).
  world.calm()
  world.finishStop()
  let converged = (await attempt(1, false)).tags[0]!
  if (converged === "ErrRejected") converged = (await attempt(1, false)).tags[0]!
  const blocked = world.events.some((e) => e.action === "edit-trainjob" || e.action === "edit-copy")
  if (converged === "ErrRejected" && blocked) return
  expect(converged).toBe(expected)
  if (expected !== "success") return
  const [job] = world.store.list("trainjobs", namespace)
  const uid = uidOf(job)
  // Open it, change its source runtime, and retry under new faults: the job is never deleted, and every
  // success returns it, with its gate as it is.
  if (c.opened) openInStore(world.recorded, config, name)
  const changed = changeSource(world, c.shape.source!, c.sourceChange, config)
  world.calm(randomFaultPlan(c.seed + 1, { rate: c.rate }))
  for (let i = 0; i < 2; i++) {
    const { exits } = await attempt(c.together, c.opened, changed)
    expect(world.store.list("trainjobs", namespace).map(uidOf), "the job stays").toEqual([uid])
    for (const exit of exits) if (Exit.isSuccess(exit)) expect(exit.value).toMatchObject({ uid, created: false, gateClosed: !c.opened })
  }
  world.calm()
  const [final] = (await attempt(1, c.opened, changed)).exits
  expect(final !== undefined && Exit.isSuccess(final) && final.value).toMatchObject({ uid, created: false, gateClosed: !c.opened })
}

/** Edits, deletes or drops from the config the job's source runtime; returns the config to use after. */
const changeSource = (world: World, source: readonly [string, string], change: (typeof sourceChanges)[number], config: BackendConfig): BackendConfig => {
  const [resource, name] = source
  const ns = resource === "trainingruntimes" ? namespace : undefined
  const object = world.store.get(resource, ns, name)!
  if (change === "edit") world.store.update(resource, { ...object, spec: { ...(object["spec"] as object), mlPolicy: { numNodes: 7 } } })
  if (change === "delete") world.store.delete(resource, ns, name, "Background")
  if (change === "drop") return { ...config, runtimes: config.runtimes.filter((r) => r.name !== name) }
  return config
}

describe("Start under random faults, writers and concurrent Starts", () => {
  it(
    `keeps the invariants over ${campaignCases} random cases`,
    async () => {
      let cases = 0
      await fc.assert(
        fc.asyncProperty(caseArbitrary, async (c) => {
          cases++
          await runCase(c)
        }),
        {
          numRuns: campaignCases,
          seed: Number(process.env["DISPATCH_CAMPAIGN_SEED"] ?? 20261201),
          // Replays one counterexample: the seed and path fast-check printed.
          ...(process.env["DISPATCH_CAMPAIGN_PATH"] === undefined ? {} : { path: process.env["DISPATCH_CAMPAIGN_PATH"], endOnFailure: true })
        }
      )
      if (process.env["DISPATCH_CAMPAIGN_PATH"] === undefined) expect(cases).toBeGreaterThanOrEqual(campaignCases)
      console.log(`Start fault campaign: ${cases} cases`)
    },
    // Generous: TestClock makes a case's work fixed, but a loaded machine runs it slower.
    600_000
  )
})
