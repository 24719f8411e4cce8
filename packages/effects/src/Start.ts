// Start, as the seed lists it: one function per step, in order, then the failure paragraph. Every
// decision about what to write or whether a read-back matches is render's; this file only calls the
// cluster, in order, and says what each failure means.
import { stringAt } from "@dispatch/kube"
import { Clock, Effect, type Fiber, Result, Tracer } from "effect"
import {
  type BackendConfig,
  type Manifests,
  type ReadBackOptions,
  type Refusal,
  type RuntimeRef,
  type StartRequest,
  checkRuntime,
  checkRuntimeListed,
  compareReadBack,
  copyMatchesSource,
  decodeStartRequest,
  isJobId,
  renderStart,
  runtimeRefOf,
  admissionGateName,
  trainJobName
} from "@dispatch/render"
import { type Backend, gateRefusal } from "./Backend.ts"
import { Cluster } from "./Cluster.ts"
import { causeOf, type ClusterCause } from "./ClusterCause.ts"
import type { ClusterError } from "./ClusterError.ts"
import { deleteIfExists, getIfExists, getRuntimeIfExists } from "./ExistingObjects.ts"
import { InFlight, inFlightKey } from "./InFlight.ts"
import type { KubeResource } from "./KubeObjects.ts"
import { pollUntil } from "./PollUntil.ts"
import { RETRY_POLICY, retryByCause, retryCall, retryRead, type RetryPolicy } from "./RetryPolicy.ts"
import { libraryLog, libraryLogWrites } from "./LibraryLog.ts"
import { TrainJobs, TrainingRuntimes, Workloads } from "./ResourceKind.ts"
import {
  ErrOutcomeUnknown,
  ErrRejected,
  ErrUnreachable,
  type ErrUnsupported,
  isPassing,
  objectRef,
  type StartError
} from "./StartErrors.ts"
import { definiteWriteFailure, errorOfRefusal, refusalDespiteUnreadFrozen } from "./StartFailure.ts"
import { adoptionMark, deleteUnusedCopy, markedFor, revokeCopy } from "./AdoptionMark.ts"
import { configListing, frozenRuntime, ownerOfItsName } from "./FrozenRuntime.ts"
import { jobUidLabel, type WorkloadExpectation, workloadProblems } from "./WorkloadReadiness.ts"

/** What a successful Start returns: `<namespace>/<name>` and the TrainJob's UID, and what this call found. */
export interface StartResult {
  readonly ref: string
  readonly namespace: string
  readonly name: string
  readonly uid: string
  /** This call created the TrainJob; false when it adopted the one an earlier Start of the request made. */
  readonly created: boolean
  /** dispatch's start gate was closed when Start returned: always for a TrainJob this call created; for an
   * adopted one, false once Open has opened it (plain: spec.suspend; Kueue: the Workload's gate). */
  readonly gateClosed: boolean
}

/** A runtime as read in step 2: the reference, and the object when it exists. */
export interface ReadRuntime {
  readonly ref: RuntimeRef
  readonly object: KubeResource | undefined
}

/** The runtime copy Start will use, whether this call created it, and the UID of the TrainJob an earlier
 * Start made its owner, if any. */
export interface CopyInUse {
  readonly copy: KubeResource
  readonly ownerUid: string | undefined
  /** This call created the copy; false when it reused one an earlier Start left. */
  readonly created: boolean
}

/** The TrainJob Start finishes: the one it created, or the one of the same request an earlier Start left
 * (adopted). An adopted TrainJob is never deleted: Start cannot know it was not opened meanwhile. */
export interface TrainJobInUse {
  readonly trainJob: KubeResource
  readonly adopted: boolean
}

/** Why step 7, 8 or 9 failed: every reason, and the cluster answer that decided it when a call did (none
 * when what the cluster holds differs from what Start wrote). */
export interface StepFailure {
  readonly reasons: ReadonlyArray<string>
  readonly cause?: ClusterCause
}

const stepFailureOf = (error: ClusterError, ...before: ReadonlyArray<string>): StepFailure => ({ reasons: [...before, ...error.reasons], cause: causeOf(error) })

const withCause = (cause: ClusterCause | undefined): { readonly cause?: ClusterCause } => (cause === undefined ? {} : { cause })

const trainJobApiVersion = `${TrainJobs.group}/${TrainJobs.version}`

// A render result as a step's outcome: its value, or the error its refusal stands for.
const unlessRefused = <A>(result: Result.Result<A, Refusal>): Effect.Effect<A, StartError> =>
  Result.isSuccess(result) ? Effect.succeed(result.success) : Effect.fail(errorOfRefusal(result.failure))

// Steps 7-9 fail with their reasons; the others with a tagged error. Either way the log names it.
const describeFailure = (error: unknown): string => {
  const record = error as { readonly _tag?: string; readonly reasons?: ReadonlyArray<string> }
  return record._tag ?? String(record.reasons?.[0] ?? "")
}

// What a Start reports besides its answer, decided once per Start from the fiber that runs it (nothing
// inside a Start changes the caller's tracer or log settings): spans for a tracer the caller installed, and
// the steps' log lines when libraryLog would write Info ones (Debug ones only if the caller's level asks).
// Without a tracer, Effect's native one would build spans that nothing exports, and a span per step costs
// more CPU than the step's own API call; with neither spans nor lines, a step runs bare rather than inside
// wrappers that would each do nothing.
interface Reporting {
  readonly spans: boolean
  readonly lines: boolean
}

const reportingOf = (fiber: Fiber.Fiber<unknown, unknown>): Reporting => ({
  spans: fiber.getRef(Tracer.Tracer) !== Tracer.nativeTracer,
  lines: libraryLogWrites(fiber, "Info")
})

const traced = <A, E, R>(reporting: Reporting, effect: Effect.Effect<A, E, R>, name: string, attributes: Readonly<Record<string, unknown>> | undefined): Effect.Effect<A, E, R> =>
  reporting.spans ? effect.pipe(Effect.withSpan(name, attributes === undefined ? undefined : { attributes }, { captureStackTrace: false })) : effect

/** Wraps one step of a Start in what the Start reports: its span, its "done" line and its "failed" line. */
type Step = (name: string) => <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>

const steps = (reporting: Reporting, attributes: Readonly<Record<string, unknown>>): Step => (name) => (effect) => {
  const logged = reporting.lines
    ? effect.pipe(
        Effect.tap(() => libraryLog("Debug", `start: ${name} done`)),
        Effect.tapError((error) => Effect.logInfo(`start: ${name} failed`).pipe(Effect.annotateLogs({ error: describeFailure(error) })))
      )
    : effect
  return traced(reporting, logged, `dispatch.start.${name}`, attributes)
}

// 1. The Backend's gates.
/** Step 1: refuses a backend whose gates are not all proven, naming the first one that is not. */
export const checkGates = (backend: Backend): Effect.Effect<void, StartError> => {
  const refusal = gateRefusal(backend.gate)
  return refusal === undefined ? Effect.void : Effect.fail(errorOfRefusal({ error: refusal.error, reasons: [refusal.reason] }))
}

/** Before step 2: the request must have the wire shape, since step 2 reads its RuntimeRef. */
export const decodeRequest = (input: unknown): Effect.Effect<StartRequest, StartError> =>
  unlessRefused(decodeStartRequest(input))

// 2. Read the runtime.
/** Step 2: reads the runtime that kubeflow/RuntimeRef names; one outside the configured list is refused
 * without a read; a missing one is left for step 3 to refuse. */
export const readRuntime = (config: BackendConfig, request: StartRequest): Effect.Effect<ReadRuntime, StartError, Cluster> =>
  Effect.flatMap(unlessRefused(runtimeRefOf(request)), (ref) => {
    const unlisted = checkRuntimeListed(config, ref)
    if (unlisted !== undefined) return Effect.fail(errorOfRefusal(unlisted))
    return Effect.map(getRuntimeIfExists(config, ref), (object) => ({ ref, object }))
  })

// 3. The runtime rules.
/** Step 3: refuses a runtime outside the configured list, missing, or breaking the runtime rules. */
export const checkRuntimeRules = (config: BackendConfig, request: StartRequest, runtime: ReadRuntime): Effect.Effect<void, StartError> => {
  const refused = checkRuntime(config, runtime.ref, runtime.object, request.spec)
  return refused === undefined ? Effect.void : Effect.fail(errorOfRefusal(refused))
}

// 4. Render.
/** Step 4: renders the runtime copy and the TrainJob; nothing has been created yet. */
export const render = (config: BackendConfig, request: StartRequest, runtime: ReadRuntime): Effect.Effect<Manifests, StartError> =>
  unlessRefused(renderStart(request, config, runtime.object))

// 5. Create the runtime copy.
/** The copy's owner is the TrainJob of its name with one of these UIDs. */
const ownedByOneOf = (copy: KubeResource, uids: ReadonlyArray<string | undefined>): boolean => {
  const owner = ownerOfItsName(copy)?.uid
  return owner !== undefined && uids.includes(owner)
}

/** The copy without its owners, for render's reuse rule, which wants an unowned copy. */
const withoutOwners = (copy: KubeResource): KubeResource => ({ ...copy, metadata: { ...copy.metadata, ownerReferences: [] } })

const reuseCopy = (manifests: Manifests, source: unknown, createAgain: Effect.Effect<CopyInUse, StartError, Cluster>): Effect.Effect<CopyInUse, StartError, Cluster> =>
  Effect.gen(function* () {
    const found = yield* getIfExists(TrainingRuntimes, { namespace: manifests.namespace, name: manifests.name })
    // Gone between the create and the read: the garbage collector took a copy whose owner was stopped.
    if (found === undefined) return yield* createAgain
    const existing = found
    // A finalizer (Trainer's resource-in-use) holds it: it is going, and a TrainJob on it would lose its runtime.
    if (existing.metadata.deletionTimestamp !== undefined) {
      // With a TrainJob of its name still there, an earlier Start's stop did not finish: the copy goes
      // only once that TrainJob does, so "retry later" would never come true.
      const job = yield* getIfExists(TrainJobs, { namespace: manifests.namespace, name: manifests.name })
      if (job !== undefined) {
        return yield* new ErrOutcomeUnknown({
          reasons: [`the TrainJob ${manifests.namespace}/${manifests.name} exists on a runtime copy that is being deleted: an earlier stop did not finish; Stop it, then retry`],
          ref: objectRef(manifests, job.metadata.uid)
        })
      }
      return yield* new ErrUnreachable({ reasons: [`the runtime copy ${manifests.namespace}/${manifests.name} is being deleted; retry once it is gone`] })
    }
    const owners = existing.metadata.ownerReferences ?? []
    const ours = ownerOfItsName(existing)
    const problems = [
      // render's rule wants an unowned copy: the spec is judged alone, the owners below, so each problem is named once.
      ...(copyMatchesSource(withoutOwners(existing), source) ? [] : [`the runtime copy ${manifests.namespace}/${manifests.name} exists with a spec that differs from its source`]),
      ...(owners.length === 0 || ours !== undefined ? [] : [`the runtime copy ${manifests.namespace}/${manifests.name} exists and belongs to another owner`])
    ]
    // The reference names the TrainJob; step 5 has not reached it, so no UID (the copy's UID is not its).
    if (problems.length > 0) return yield* new ErrRejected({ reasons: problems, ref: objectRef(manifests) })
    // A copy owned by the TrainJob of the same name is what an earlier, successful Start left: step 6
    // decides whether that TrainJob is this request's.
    return { copy: existing, ownerUid: ours?.uid, created: false }
  })

/** Step 5: creates the runtime copy, or reuses one a retried Start left. An unanswered create is
 * ErrUnreachable: the copy may exist, but no TrainJob will be created on it. */
export const createCopy = (manifests: Manifests, source: unknown, attempts = 2): Effect.Effect<CopyInUse, StartError, Cluster> =>
  Effect.flatMap(Cluster, (cluster) =>
    cluster.create(TrainingRuntimes, manifests.runtimeCopy).pipe(
      Effect.map((copy): CopyInUse => ({ copy, ownerUid: undefined, created: true })),
      Effect.catchTag("ClusterError", (e) => {
        if (e.reason !== "AlreadyExists") return Effect.fail(definiteWriteFailure(e))
        const again =
          attempts > 1
            ? createCopy(manifests, source, attempts - 1)
            : Effect.fail(new ErrUnreachable({ reasons: [`the runtime copy ${manifests.namespace}/${manifests.name} kept vanishing between create and read`] }))
        return reuseCopy(manifests, source, again)
      })
    )
  )

// 6. Create the TrainJob.
/** Deletes a copy an earlier Start left, once this Start has ended in a refusal: unless a TrainJob of its
 * name is there (it runs on the copy, or an earlier create of it landed) or the copy has an owner (it goes
 * with its owner). The create this Start was refused would be refused again, so no earlier create of the
 * same request can still land and want the copy. */
const deleteLeftCopy = (manifests: Manifests, copy: KubeResource): Effect.Effect<"deleted" | "in-use", ReadonlyArray<string>, Cluster> =>
  Effect.gen(function* () {
    const job = yield* retryRead(getIfExists(TrainJobs, { namespace: manifests.namespace, name: manifests.name })).pipe(Effect.mapError((e) => e.reasons))
    if (job !== undefined) return "in-use" as const
    return yield* deleteUnusedCopy(manifests, copy)
  })

/** A create that failed definitely: delete the copy and return the cause; if the copy stays, say so and
 * make it retryable, since a retry reuses it. A copy this call created goes unless a concurrent Start of
 * the request has since put a TrainJob on it (it has an owner, or moved: see deleteUnusedCopy). A copy an
 * earlier Start left goes too when the failure is a refusal (nothing will use it: see deleteLeftCopy);
 * after a passing failure it is kept for the retry, since a TrainJob of its name (owner or not yet: an
 * unanswered create lands without step 7) may run on it. */
const abandonCopy = (manifests: Manifests, inUse: CopyInUse, cause: StartError): Effect.Effect<never, StartError, Cluster> => {
  if (!inUse.created && isPassing(cause)) return Effect.fail(cause)
  const remove = inUse.created ? deleteUnusedCopy(manifests, inUse.copy) : deleteLeftCopy(manifests, inUse.copy)
  return remove.pipe(
    Effect.matchEffect({
      onSuccess: () => Effect.fail(cause),
      onFailure: (reasons) => Effect.fail(new ErrUnreachable({ reasons: [...cause.reasons, `the runtime copy could not be deleted: ${reasons.join("; ")}`] }))
    })
  )
}

/** An existing TrainJob that is not this request's keeps the copy of its name, which it runs on: a copy
 * this call created goes (the state before the call); one it found is handed to that TrainJob. */
const refuseAdoption = (config: BackendConfig, manifests: Manifests, inUse: CopyInUse, existing: KubeResource, problems: ReadonlyArray<string>): Effect.Effect<never, StartError, Cluster> => {
  const refused = new ErrRejected({ reasons: problems, ref: objectRef(manifests, existing.metadata.uid) })
  if (inUse.created) return abandonCopy(manifests, inUse, refused)
  return setCopyOwner(config, manifests, inUse, { trainJob: existing, adopted: false }).pipe(
    Effect.matchEffect({
      onSuccess: () => Effect.fail(refused),
      onFailure: (failure) => Effect.fail(new ErrRejected({ reasons: [...problems, ...failure.reasons], ref: refused.ref ?? objectRef(manifests), ...withCause(failure.cause) }))
    })
  )
}

const adoptExisting = (config: BackendConfig, manifests: Manifests, inUse: CopyInUse): Effect.Effect<TrainJobInUse, StartError, Cluster> =>
  Effect.gen(function* () {
    const cluster = yield* Cluster
    const existing = yield* cluster.get(TrainJobs, { namespace: manifests.namespace, name: manifests.name }).pipe(
      // It exists but cannot be read: whether it is this request's is unknown.
      Effect.mapError((e) => new ErrOutcomeUnknown({ reasons: e.reasons, ref: objectRef(manifests), cause: causeOf(e) }))
    )
    const problems = [
      ...compareReadBack(manifests.trainJob, existing, config, { adopted: true }),
      ...(existing.metadata.deletionTimestamp === undefined ? [] : [`the TrainJob ${manifests.namespace}/${manifests.name} is being deleted`])
    ]
    // A copy naming an older UID of this TrainJob's name outlived a TrainJob an earlier attempt stopped
    // (names are unique, so that owner is gone); step 7 hands it to this one.
    if (problems.length === 0) return { trainJob: existing, adopted: true }
    return yield* refuseAdoption(config, manifests, inUse, existing, problems)
  })

/** Step 6: creates the TrainJob. A retried Start finds its own TrainJob and compares it instead; an
 * unanswered create is ErrOutcomeUnknown and remembered for Find; a definite failure deletes the copy. */
export const createTrainJob = (config: BackendConfig, manifests: Manifests, inUse: CopyInUse): Effect.Effect<TrainJobInUse, StartError, Cluster | InFlight> =>
  Effect.flatMap(Cluster, (cluster) =>
    cluster.create(TrainJobs, manifests.trainJob).pipe(
      Effect.map((trainJob): TrainJobInUse => ({ trainJob, adopted: false })),
      Effect.catchTag("ClusterError", (e): Effect.Effect<TrainJobInUse, StartError, Cluster | InFlight> => {
        if (e.reason === "AlreadyExists") return adoptExisting(config, manifests, inUse)
        if (e.reason === "Unanswered") {
          return Effect.flatMap(InFlight, (inFlight) =>
            Effect.flatMap(Clock.currentTimeMillis, (now) =>
              Effect.andThen(inFlight.remember(inFlightKey(manifests), now), Effect.fail(new ErrOutcomeUnknown({ reasons: e.reasons, ref: objectRef(manifests) })))
            )
          )
        }
        return abandonCopy(manifests, inUse, definiteWriteFailure(e))
      })
    )
  )

// 7. Own the copy.
/** Step 7: makes the TrainJob the copy's owner, so deleting the TrainJob collects the copy; an adopter
 * also marks the copy (see AdoptionMark). Returns the copy as it stands afterwards. A passing fault is
 * tried again (RetryPolicy); every try after the first reads the copy afresh, since the failed patch may
 * have landed and Trainer's finalizer or a concurrent Start may have moved the copy. */
export const setCopyOwner = (
  config: BackendConfig,
  manifests: Manifests,
  inUse: CopyInUse,
  job: TrainJobInUse,
  policy: RetryPolicy = RETRY_POLICY
): Effect.Effect<KubeResource, StepFailure, Cluster> =>
  Effect.gen(function* () {
    const cluster = yield* Cluster
    const uid = job.trainJob.metadata.uid ?? ""
    const done = (copy: KubeResource) => ownerOfItsName(copy)?.uid === uid && (!job.adopted || markedFor(config, copy, uid))
    const key = { namespace: manifests.namespace, name: manifests.name }
    const owner = { apiVersion: trainJobApiVersion, kind: "TrainJob", name: manifests.name, uid, controller: true }
    const body = { metadata: { ownerReferences: [owner], ...(job.adopted ? { annotations: { [adoptionMark(config)]: uid } } : {}) } }
    // Patch once more only if nothing but the owner, the resourceVersion or a finalizer changed.
    const readAgain = Effect.gen(function* () {
      const now = yield* Effect.mapError(cluster.get(TrainingRuntimes, key), (e) => stepFailureOf(e))
      const unchanged =
        now.metadata.uid === inUse.copy.metadata.uid &&
        now.metadata.deletionTimestamp === undefined &&
        // An owner other than this TrainJob or the one the copy had when this Start found it is a newer
        // TrainJob of the name, which replaced ours: the copy is its runtime now.
        ((now.metadata.ownerReferences ?? []).length === 0 || ownedByOneOf(now, [uid, inUse.ownerUid])) &&
        copyMatchesSource(withoutOwners(now), inUse.copy)
      if (!unchanged) return yield* Effect.fail<StepFailure>({ reasons: [`the runtime copy ${manifests.namespace}/${manifests.name} changed since it was created`] })
      return now
    })
    let seen: KubeResource | undefined = inUse.copy
    const attempt = Effect.gen(function* () {
      const copy = seen ?? (yield* readAgain)
      seen = undefined
      if (done(copy)) return copy
      const resourceVersion = copy.metadata.resourceVersion
      return yield* Effect.mapError(cluster.mergePatch(TrainingRuntimes, key, body, resourceVersion === undefined ? {} : { resourceVersion }), (e) => stepFailureOf(e))
    })
    return yield* retryByCause(attempt, (failure) => failure.cause, policy)
  }).pipe(Effect.mapError((failure) => ({ ...failure, reasons: [`the runtime copy's owner could not be set`, ...failure.reasons] })))

// 8. Read back.
/** Step 8: reads the TrainJob back and compares what Start wrote; one being deleted fails too. A read that
 * meets a passing fault is tried again (RetryPolicy). */
export const readBack = (config: BackendConfig, manifests: Manifests, options: ReadBackOptions = {}, policy: RetryPolicy = RETRY_POLICY): Effect.Effect<KubeResource, StepFailure, Cluster> =>
  Effect.flatMap(Cluster, (cluster) =>
    retryCall(cluster.get(TrainJobs, { namespace: manifests.namespace, name: manifests.name }), policy).pipe(
      Effect.mapError((e) => stepFailureOf(e, "the TrainJob could not be read back")),
      Effect.flatMap((read) => {
        const changed = [
          ...compareReadBack(manifests.trainJob, read, config, options),
          // Someone deleted it meanwhile (a finalizer holds it): a job that is going is not started.
          ...(read.metadata.deletionTimestamp === undefined ? [] : [`the TrainJob ${manifests.namespace}/${manifests.name} is being deleted`])
        ]
        return changed.length > 0 ? Effect.fail({ reasons: changed }) : Effect.succeed(read)
      })
    )
  )

// 9. Kueue: wait for the Workload.
/** Step 9: in Kueue mode, polls every second up to timeouts.workload for the TrainJob's Workload to exist,
 * carry dispatch's gate and list the admission check; a failed list is read again at the next poll (never
 * sooner than its Retry-After). Says whether a ready Workload carries the gate (always in plain mode, where
 * step 9 has nothing to wait for). Timing out after a failed list carries that list's cause. */
export const awaitWorkload = (
  config: BackendConfig,
  manifests: Manifests,
  trainJob: KubeResource,
  expectation: WorkloadExpectation = {}
): Effect.Effect<boolean, StepFailure, Cluster> =>
  config.mode !== "kueue"
    ? Effect.succeed(true)
    : Effect.gen(function* () {
        const cluster = yield* Cluster
        const gate = admissionGateName(config)
        const check = config.kueue.admissionCheck
        const selector = `${jobUidLabel}=${trainJob.metadata.uid ?? ""}`
        const problemsNow = Effect.map(Effect.result(cluster.list(Workloads, manifests.namespace, selector)), (listed) =>
          Result.isSuccess(listed)
            ? { problems: workloadProblems(listed.success, gate, check, expectation), gated: workloadProblems(listed.success, gate, check).length === 0, cause: undefined }
            : { problems: listed.failure.reasons, gated: false, cause: causeOf(listed.failure) }
        )
        const polled = yield* pollUntil(problemsNow, (now) => now.problems.length === 0, config.timeouts.workloadMs, (now) => now.cause?.retryAfterMs ?? 0)
        if (!polled.done) return yield* Effect.fail<StepFailure>({ reasons: [`no ready Workload within ${config.timeouts.workloadMs} ms`, ...polled.value.problems], ...withCause(polled.value.cause) })
        return polled.value.gated
      })

// When 7, 8 or 9 fails.
/** The failure paragraph: stops the TrainJob Start created and its copy, then returns ErrRejected; if
 * stopping fails too, ErrOutcomeUnknown. Both carry the reference, and the cause that decided the step. The copy goes first, with the
 * resourceVersion `seen` as precondition, so a concurrent Start of the request that adopted the TrainJob
 * (and marked the copy) keeps it: then this Start leaves it and says ErrOutcomeUnknown. An adopted
 * TrainJob is left as it is (ErrRejected): this call did not create it, and Open may have started it. */
export const stopAfterFailure = (
  config: BackendConfig,
  manifests: Manifests,
  seen: KubeResource,
  job: TrainJobInUse,
  failure: StepFailure
): Effect.Effect<never, StartError, Cluster> =>
  Effect.gen(function* () {
    const { reasons } = failure
    const uid = job.trainJob.metadata.uid ?? ""
    const ref = objectRef(manifests, uid)
    const cause = withCause(failure.cause)
    if (job.adopted) return yield* new ErrRejected({ reasons: [...reasons, `the TrainJob existed before this Start, so it was left as it is`], ref, ...cause })
    const revoked = yield* Effect.result(revokeCopy(config, manifests, seen, uid))
    if (Result.isFailure(revoked)) {
      return yield* new ErrOutcomeUnknown({ reasons: [...reasons, `stopping the TrainJob failed: ${revoked.failure.join("; ")}`], ref, ...cause })
    }
    if (revoked.success === "adopted") {
      return yield* new ErrOutcomeUnknown({ reasons: [...reasons, `a concurrent Start of this request adopted the TrainJob, so it was left as it is`], ref, ...cause })
    }
    const stopped = yield* Effect.result(retryCall(deleteIfExists(TrainJobs, { namespace: manifests.namespace, name: manifests.name }, uid)))
    if (Result.isFailure(stopped)) {
      return yield* new ErrOutcomeUnknown({ reasons: [...reasons, `stopping the TrainJob failed: ${stopped.failure.reasons.join("; ")}`], ref, ...cause })
    }
    return yield* new ErrRejected({ reasons, ref, ...cause })
  })

/** The job id of a request not yet decoded, when it has one: for the first steps' spans and the logs. */
const rawJobOf = (input: unknown): string | undefined => {
  return stringAt(input, ["job"])
}

/** Turns a request's JobID and its TrainJob's name (once the id is known valid) into span attributes;
 * never anything from the kubeconfig. */
const attributesOf = (request: StartRequest): Readonly<Record<string, unknown>> => ({
  "dispatch.job": request.job,
  "dispatch.submission": request.submission,
  ...(isJobId(request.job) ? { "dispatch.name": trainJobName(request.job, request.submission) } : {})
})

/** Steps 2 to 5, and the runtime copy they settle on. When they refuse (the source runtime edited,
 * deleted or dropped from the config), a copy that the live TrainJob of the request's name owns is the
 * job's frozen runtime: steps 4 and 5 are done again on it, and step 6 decides whether that TrainJob is
 * this request's. A fallback read that fails (after its retries) leaves the refusal, with its reasons. */
const prepare = (config: BackendConfig, request: StartRequest, step: Step) =>
  Effect.gen(function* () {
    const runtime = yield* step("readRuntime")(readRuntime(config, request))
    yield* step("checkRuntimeRules")(checkRuntimeRules(config, request, runtime))
    const manifests = yield* step("render")(render(config, request, runtime))
    const inUse = yield* step("createCopy")(createCopy(manifests, runtime.object))
    return { manifests, inUse }
  }).pipe(
    Effect.catchIf(
      (error): error is ErrUnsupported | ErrRejected => error._tag === "ErrUnsupported" || error._tag === "ErrRejected",
      (refused) =>
        Effect.gen(function* () {
          // The fallback's read never replaces the refusal: it is added to it (refusalDespiteUnreadFrozen).
          const read = yield* Effect.result(step("frozenRuntime")(retryRead(frozenRuntime(config, request))))
          if (Result.isFailure(read)) return yield* Effect.fail(refusalDespiteUnreadFrozen(refused, read.failure))
          const frozen = read.success
          if (frozen === undefined) return yield* Effect.fail(refused)
          const manifests = yield* step("render")(render(configListing(config, frozen.ref), request, frozen))
          const inUse: CopyInUse = { copy: frozen.object, ownerUid: ownerOfItsName(frozen.object)?.uid, created: false }
          return { manifests, inUse }
        })
    )
  )

/** Start: turns a StartRequest into a runtime copy and a TrainJob with its start gate closed. */
export const start = (backend: Backend, input: unknown): Effect.Effect<StartResult, StartError, Cluster | InFlight> =>
  Effect.withFiber((fiber) => {
    const reporting = reportingOf(fiber)
    const rawJob = rawJobOf(input)
    const program = Effect.gen(function* () {
      const config = backend.config
      const first = steps(reporting, rawJob === undefined ? {} : { "dispatch.job": rawJob })
      yield* first("checkGates")(checkGates(backend))
      const request = yield* first("decodeRequest")(decodeRequest(input))
      const step = steps(reporting, attributesOf(request))
      const { manifests, inUse } = yield* prepare(config, request, step)
      const job = yield* step("createTrainJob")(createTrainJob(config, manifests, inUse))
      const trainJob = job.trainJob
      const gateClosed = yield* Effect.gen(function* () {
        const copy = yield* step("setCopyOwner")(setCopyOwner(config, manifests, inUse, job)).pipe(Effect.mapError((failure) => ({ failure, seen: inUse.copy })))
        return yield* Effect.gen(function* () {
          const read = yield* step("readBack")(readBack(config, manifests, { adopted: job.adopted }))
          const gated = yield* step("awaitWorkload")(awaitWorkload(config, manifests, trainJob, { gateMayBeGone: job.adopted }))
          return config.mode === "plain" ? (read["spec"] as { readonly suspend?: unknown } | undefined)?.suspend === true : gated
        }).pipe(Effect.mapError((failure) => ({ failure, seen: copy })))
      }).pipe(Effect.catch((failed) => step("stopAfterFailure")(stopAfterFailure(config, manifests, failed.seen, job, failed.failure))))
      const inFlight = yield* InFlight
      yield* inFlight.forget(inFlightKey(manifests))
      const uid = trainJob.metadata.uid ?? ""
      if (reporting.lines) {
        const done = job.adopted ? "start: the TrainJob an earlier Start created is this request's" : "start: TrainJob created with its start gate closed"
        yield* Effect.logInfo(done).pipe(Effect.annotateLogs({ uid, gateClosed }))
      }
      return { ref: `${manifests.namespace}/${manifests.name}`, namespace: manifests.namespace, name: manifests.name, uid, created: !job.adopted, gateClosed }
    })
    return traced(reporting, program.pipe(Effect.annotateLogs(rawJob === undefined ? {} : { job: rawJob })), "dispatch.start", undefined)
  })
