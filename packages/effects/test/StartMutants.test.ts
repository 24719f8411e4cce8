// Start's rules at the edges the step tests do not draw, each found by mutation testing (docs/testing.md):
// which existing copy is "ours", a copy or TrainJob caught being deleted, a copy that keeps vanishing,
// what step 7 leaves on the copy and when it patches again, the reasons each failure names, the Workload
// wait's selector, and the spans and log lines a Start leaves. Every test reads the simulator's store.
import { Effect, Layer, Logger, References, Tracer } from "effect"
import { describe, expect, it } from "vitest"
import type { FaultRule, KubeObject } from "@dispatch/sim"
import { adoptionMark } from "../src/AdoptionMark.ts"
import { InFlight, makeInFlight } from "../src/InFlight.ts"
import { RETRY_POLICY } from "../src/RetryPolicy.ts"
import { SimCluster } from "@dispatch/sim/cluster"
import { start } from "../src/Start.ts"
import {
  afterCall,
  backendOf,
  configOf,
  errorOf,
  namespace,
  type RecordedSim,
  requestOf,
  runOnTestClock,
  runStart,
  scriptedKueue,
  simOf,
  stored,
  suspendOnCreate,
  torchRuntime,
  trainJobNameOf,
  valueOf
} from "./StartFixture.ts"

const plain = configOf("plain")
const open = backendOf(plain)
const name1 = trainJobNameOf(1)
const finalizer = "example.com/keep"

const uidOf = (object: KubeObject | undefined): unknown => object?.metadata?.["uid"]
const ownerUids = (object: KubeObject | undefined): ReadonlyArray<unknown> =>
  ((object?.metadata?.["ownerReferences"] as ReadonlyArray<Record<string, unknown>> | undefined) ?? []).map((o) => o["uid"])
const copyOf = (recorded: RecordedSim): KubeObject | undefined => recorded.sim.system.get("trainingruntimes", namespace, name1)
const jobOf = (recorded: RecordedSim): KubeObject | undefined => recorded.sim.system.get("trainjobs", namespace, name1)
const callsOf = (recorded: RecordedSim, verb: string, resource: string) => recorded.calls.filter((c) => c.request.verb === verb && c.request.resource === resource)

/** A copy of job 1's name with the source runtime's spec and the given owners, as an earlier Start or someone else left it. */
const leaveCopy = (recorded: RecordedSim, ownerReferences: ReadonlyArray<Record<string, unknown>>): void => {
  const source = recorded.sim.system.get("clustertrainingruntimes", undefined, "torch-distributed")!
  recorded.sim.system.create("trainingruntimes", { ...torchRuntime(name1, "TrainingRuntime"), spec: source["spec"], metadata: { name: name1, namespace, ownerReferences } })
}

const trainJobOwner = (name: string, uid: string) => ({ apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainJob", name, uid })

/** Job 1's first create lands unanswered; then a new attempt of the job (its comment and attempt token
 * differ, so the TrainJob is not its) is started with `faults`. */
const newAttemptOverLanded = async (faults: ReadonlyArray<FaultRule>) => {
  const recorded = simOf({ faults: [{ verb: "create", resource: "trainjobs", nth: 1, action: { type: "drop" } }] })
  const inFlight = makeInFlight()
  expect(errorOf(await runStart(recorded, open, requestOf(1), inFlight))._tag).toBe("ErrOutcomeUnknown")
  const landed = jobOf(recorded)
  recorded.sim.setFaults(faults)
  const error = errorOf(await runStart(recorded, open, { ...requestOf(1), attempt: 2 }, inFlight))
  return { recorded, landed, error }
}

/** Answers the first call of `verb` on `resource` with a 422 Status carrying two field causes, applying nothing. */
const invalidWithCauses = (recorded: RecordedSim, verb: string, resource: string): RecordedSim => {
  let done = false
  return {
    ...recorded,
    face: {
      ...recorded.face,
      handle: (request) => {
        if (done || request.verb !== verb || request.resource !== resource) return recorded.face.handle(request)
        done = true
        const causes = [
          { reason: "FieldValueInvalid", field: "metadata.finalizers", message: "held" },
          { reason: "FieldValueInvalid", field: "metadata.uid", message: "mismatch" }
        ]
        return { kind: "answered", response: { code: 422, body: { kind: "Status", apiVersion: "v1", status: "Failure", reason: "Invalid", code: 422, message: "refused", details: { causes } } } }
      }
    }
  }
}

/** Holds job 1's object of `resource` with a finalizer and deletes it, so it stays with a deletionTimestamp. */
const holdAndDelete = (recorded: RecordedSim, resource: "trainjobs" | "trainingruntimes"): void => {
  const object = recorded.sim.system.get(resource, namespace, name1)!
  recorded.sim.system.update(resource, { ...object, metadata: { ...object.metadata, finalizers: [finalizer] } })
  recorded.sim.system.delete(resource, namespace, name1, "Background")
}

describe("Start, step 5: which existing copy is this job's", () => {
  it.each([
    ["a Secret of the job's name", [{ apiVersion: "v1", kind: "Secret", name: trainJobNameOf(1), uid: "u-cm" }]],
    ["a TrainJob of another name", [trainJobOwner(trainJobNameOf(2), "u-other")]],
    ["a TrainJob of the job's name and something else", [trainJobOwner(trainJobNameOf(1), "u-gone"), { apiVersion: "v1", kind: "Secret", name: "x", uid: "u-cm" }]]
  ])("a copy owned by %s is another owner's: ErrRejected, nothing created", async (_, owners) => {
    const recorded = simOf()
    leaveCopy(recorded, owners)
    const error = errorOf(await runStart(recorded, open, requestOf(1)))
    expect(error._tag).toBe("ErrRejected")
    expect(error.reasons).toEqual([`the runtime copy ${namespace}/${name1} exists and belongs to another owner`])
    expect(error).toMatchObject({ ref: { namespace, name: name1 } })
    expect(ownerUids(copyOf(recorded))).toEqual(owners.map((o) => o.uid))
    expect(stored(recorded, "trainjobs")).toEqual([])
  })

  it("a copy with the source's spec owned by a gone TrainJob of its name is this job's: the new TrainJob takes it over", async () => {
    const recorded = simOf()
    leaveCopy(recorded, [trainJobOwner(name1, "u-gone")])
    const result = valueOf(await runStart(recorded, open, requestOf(1)))
    expect(ownerUids(copyOf(recorded))).toEqual([result.uid])
  })

  it("a copy being deleted while its TrainJob is still there is ErrOutcomeUnknown naming that TrainJob: an earlier stop did not finish", async () => {
    const recorded = simOf()
    const first = valueOf(await runStart(recorded, open, requestOf(1)))
    holdAndDelete(recorded, "trainingruntimes")
    const error = errorOf(await runStart(recorded, open, requestOf(1)))
    expect(error._tag).toBe("ErrOutcomeUnknown")
    expect(error.reasons).toEqual([
      `the TrainJob ${namespace}/${name1} exists on a runtime copy that is being deleted: an earlier stop did not finish; Stop it, then retry`
    ])
    expect(error).toMatchObject({ ref: { namespace, name: name1, uid: first.uid } })
    expect(stored(recorded, "trainjobs").map(uidOf)).toEqual([first.uid])
  })

  it("a copy that vanishes twice between create and read is ErrUnreachable after two creates, and no TrainJob is created", async () => {
    // The copy is there for each create (AlreadyExists) and gone for each read (404).
    const recorded = simOf({ faults: [{ verb: "get", resource: "trainingruntimes", name: trainJobNameOf(1), action: { type: "status", code: 404 } }] })
    leaveCopy(recorded, [])
    const error = errorOf(await runStart(recorded, open, requestOf(1)))
    expect(error._tag).toBe("ErrUnreachable")
    expect(error.reasons).toEqual([`the runtime copy ${namespace}/${name1} kept vanishing between create and read`])
    expect(callsOf(recorded, "create", "trainingruntimes")).toHaveLength(2)
    expect(callsOf(recorded, "create", "trainjobs")).toEqual([])
  })
})

describe("Start, steps 2 to 5 on a job's frozen runtime", () => {
  it("only a refusal falls back to the job's frozen copy: a source runtime that cannot be read is ErrUnreachable (retry later), even with the job there", async () => {
    const recorded = simOf()
    const first = valueOf(await runStart(recorded, open, requestOf(1)))
    recorded.sim.setFaults([{ verb: "get", resource: "clustertrainingruntimes", action: { type: "status", code: 503 } }])
    const error = errorOf(await runStart(recorded, open, requestOf(1)))
    expect(error._tag).toBe("ErrUnreachable")
    expect(callsOf(recorded, "get", "trainjobs")).toHaveLength(1)
    expect(stored(recorded, "trainjobs").map(uidOf)).toEqual([first.uid])
  })
})

describe("Start, step 6: a TrainJob of the name already there", () => {
  it("one that cannot be read is ErrOutcomeUnknown with the read's reasons: whether it is this request's is unknown", async () => {
    const recorded = simOf()
    const first = valueOf(await runStart(recorded, open, requestOf(1)))
    recorded.sim.setFaults([{ verb: "get", resource: "trainjobs", action: { type: "status", code: 500, message: "etcd is down" } }])
    const error = errorOf(await runStart(recorded, open, requestOf(1)))
    expect(error._tag).toBe("ErrOutcomeUnknown")
    expect(error.reasons.join(" ")).toContain("etcd is down")
    expect(error).toEqual(expect.objectContaining({ ref: { namespace, name: name1 } }))
    expect(stored(recorded, "trainjobs").map(uidOf)).toEqual([first.uid])
    expect(ownerUids(copyOf(recorded))).toEqual([first.uid])
  })

  it("one of this request that is being deleted is not adopted: ErrRejected with its reference, and its copy stays its own", async () => {
    const recorded = simOf()
    const first = valueOf(await runStart(recorded, open, requestOf(1)))
    holdAndDelete(recorded, "trainjobs")
    const error = errorOf(await runStart(recorded, open, requestOf(1)))
    expect(error._tag).toBe("ErrRejected")
    expect(error.reasons).toEqual([`the TrainJob ${namespace}/${name1} is being deleted`])
    expect(error).toMatchObject({ ref: { namespace, name: name1, uid: first.uid } })
    expect(ownerUids(copyOf(recorded))).toEqual([first.uid])
    expect(callsOf(recorded, "delete", "trainjobs")).toEqual([])
  })

  it("one that is not this request's gets the copy it runs on as its owner, but not the mark of an adoption", async () => {
    const { recorded, landed, error } = await newAttemptOverLanded([])
    expect(error._tag).toBe("ErrRejected")
    const copy = copyOf(recorded)
    expect(ownerUids(copy)).toEqual([uidOf(landed)])
    expect((copy?.metadata?.["annotations"] as Record<string, string> | undefined)?.[adoptionMark(plain)]).toBeUndefined()
  })

  it("one that is not this request's keeps the copy; when handing it over fails, ErrRejected names both", async () => {
    const { recorded, landed, error } = await newAttemptOverLanded([{ verb: "patch", resource: "trainingruntimes", action: { type: "status", code: 500, message: "patch broke" } }])
    expect(error._tag).toBe("ErrRejected")
    expect(error).toMatchObject({ ref: { namespace, name: name1, uid: uidOf(landed) } })
    const at = error.reasons.indexOf("the runtime copy's owner could not be set")
    expect(at).toBeGreaterThan(0)
    expect(error.reasons.slice(at + 1).join(" ")).toContain("patch broke")
    expect(copyOf(recorded)).toBeDefined()
    expect(stored(recorded, "trainjobs").map(uidOf)).toEqual([uidOf(landed)])
  })
})

describe("Start, step 7: the copy's owner", () => {
  it("a Start that created the TrainJob does not mark the copy as adopted", async () => {
    const recorded = simOf()
    const result = valueOf(await runStart(recorded, open, requestOf(1)))
    const copy = copyOf(recorded)
    expect(ownerUids(copy)).toEqual([result.uid])
    expect((copy?.metadata?.["annotations"] as Record<string, string> | undefined)?.[adoptionMark(plain)]).toBeUndefined()
  })

  it("sets the owner with the copy's resourceVersion as precondition, a controller reference to the TrainJob", async () => {
    const recorded = simOf()
    const result = valueOf(await runStart(recorded, open, requestOf(1)))
    const [patch] = callsOf(recorded, "patch", "trainingruntimes")
    const body = patch?.request.body as { metadata: { resourceVersion?: string; ownerReferences: ReadonlyArray<unknown> } }
    expect(body.metadata.resourceVersion).toBeTypeOf("string")
    expect(copyOf(recorded)?.metadata?.["ownerReferences"]).toEqual([
      { apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainJob", name: name1, uid: result.uid, controller: true }
    ])
  })

  it("an owner patch that went unanswered but landed is read, not repeated", async () => {
    const recorded = simOf({ faults: [{ verb: "patch", resource: "trainingruntimes", nth: 1, action: { type: "drop" } }] })
    const result = valueOf(await runStart(recorded, open, requestOf(1)))
    expect(callsOf(recorded, "patch", "trainingruntimes")).toHaveLength(1)
    expect(ownerUids(copyOf(recorded))).toEqual([result.uid])
  })

  it("an owner patch refused by the server names it and is not retried: ErrRejected, the TrainJob and copy stopped", async () => {
    // Only the first patch fails: a refusal ends step 7 (only a passing fault tries again).
    const recorded = simOf({ faults: [{ verb: "patch", resource: "trainingruntimes", nth: 1, action: { type: "status", code: 422, message: "patch broke" } }] })
    const error = errorOf(await runStart(recorded, open, requestOf(1)))
    expect(error._tag).toBe("ErrRejected")
    expect(error.reasons[0]).toBe("the runtime copy's owner could not be set")
    expect(error.reasons.join(" ")).toContain("patch broke")
    expect(callsOf(recorded, "patch", "trainingruntimes")).toHaveLength(1)
    expect(stored(recorded, "trainjobs")).toEqual([])
    expect(copyOf(recorded)).toBeUndefined()
  })

  it("an owner patch that went unanswered, then a copy that cannot be read, names the read's failure; the TrainJob is stopped", async () => {
    const recorded = simOf({
      faults: [
        { verb: "patch", resource: "trainingruntimes", nth: 1, action: { type: "drop" } },
        // Every read of the retries that follow the lost patch fails; the clean-up's read does not.
        { verb: "get", resource: "trainingruntimes", name: trainJobNameOf(1), nth: 1, times: RETRY_POLICY.tries - 1, action: { type: "status", code: 500, message: "copy unreadable" } }
      ]
    })
    const error = errorOf(await runStart(recorded, open, requestOf(1)))
    expect(error._tag).toBe("ErrRejected")
    expect(error.reasons[0]).toBe("the runtime copy's owner could not be set")
    expect(error.reasons.slice(1).join(" ")).toContain("copy unreadable")
    expect(stored(recorded, "trainjobs")).toEqual([])
    expect(copyOf(recorded)).toBeUndefined()
  })

  it.each([
    [
      "replaced by another copy with the same spec",
      (recorded: RecordedSim) => {
        const copy = copyOf(recorded)!
        recorded.sim.system.delete("trainingruntimes", namespace, name1, "Background")
        const { uid: _uid, resourceVersion: _rv, creationTimestamp: _ct, ...metadata } = copy.metadata as Record<string, unknown>
        recorded.sim.system.create("trainingruntimes", { ...copy, metadata })
      }
    ],
    ["being deleted", (recorded: RecordedSim) => holdAndDelete(recorded, "trainingruntimes")],
    [
      "given another owner",
      (recorded: RecordedSim) => {
        const copy = copyOf(recorded)!
        recorded.sim.system.update("trainingruntimes", { ...copy, metadata: { ...copy.metadata, ownerReferences: [{ apiVersion: "v1", kind: "Secret", name: "x", uid: "u-cm" }] } })
      }
    ]
  ] as const)("a copy %s after the TrainJob's create is not taken over: Start fails naming the change", async (_, change) => {
    const base = simOf()
    const recorded = afterCall(base, "create", "trainjobs", () => change(base))
    const error = errorOf(await runStart(recorded, open, requestOf(1)))
    expect(["ErrRejected", "ErrOutcomeUnknown"]).toContain(error._tag)
    expect(error.reasons.slice(0, 2)).toEqual(["the runtime copy's owner could not be set", `the runtime copy ${namespace}/${name1} changed since it was created`])
    const job = jobOf(base)
    const copy = copyOf(base)
    expect(ownerUids(copy)).not.toContain(uidOf(job) ?? "none")
    expect(callsOf(base, "patch", "trainingruntimes")).toHaveLength(1)
  })
})

describe("Start, steps 8 and 9, and the failure paragraph: what each failure says", () => {
  it("a read-back that fails names it", async () => {
    const recorded = simOf({ faults: [{ verb: "get", resource: "trainjobs", action: { type: "status", code: 503, message: "try later" } }] })
    const error = errorOf(await runStart(recorded, open, requestOf(1)))
    expect(error._tag).toBe("ErrRejected")
    expect(error.reasons[0]).toBe("the TrainJob could not be read back")
    expect(error.reasons.join(" ")).toContain("try later")
  })

  it("a stop that fails names it after the failure: ErrOutcomeUnknown", async () => {
    const recorded = simOf({
      faults: [
        { verb: "patch", resource: "trainingruntimes", action: { type: "status", code: 500 } },
        { verb: "delete", resource: "trainjobs", action: { type: "status", code: 500, message: "delete broke" } }
      ]
    })
    const error = errorOf(await runStart(recorded, open, requestOf(1)))
    expect(error._tag).toBe("ErrOutcomeUnknown")
    expect(error.reasons[0]).toBe("the runtime copy's owner could not be set")
    expect(error.reasons.at(-1)).toMatch(/^stopping the TrainJob failed: .*delete broke/)
    // The copy went first, then the TrainJob's delete (with its UID as precondition) failed.
    expect(copyOf(recorded)).toBeUndefined()
    expect(stored(recorded, "trainjobs")).toHaveLength(1)
    const [deleted] = callsOf(recorded, "delete", "trainjobs")
    expect(JSON.stringify(deleted?.request.body)).toContain(String(uidOf(jobOf(recorded))))
  })

  it("a copy that cannot be deleted after a definite failure names every cause of its delete's refusal", async () => {
    const base = simOf({ faults: [{ verb: "create", resource: "trainjobs", action: { type: "status", code: 500 } }] })
    const error = errorOf(await runStart(invalidWithCauses(base, "delete", "trainingruntimes"), open, requestOf(1)))
    expect(error._tag).toBe("ErrUnreachable")
    const call = `delete trainingruntimes ${namespace}/${name1}`
    expect(error.reasons.at(-1)).toBe(
      `the runtime copy could not be deleted: ${call}: Invalid (422): refused; ${call}: metadata.finalizers: held; ${call}: metadata.uid: mismatch`
    )
    expect(copyOf(base)).toBeDefined()
  })

  it("a stop refused with several causes names each of them", async () => {
    const base = simOf({ faults: [{ verb: "patch", resource: "trainingruntimes", action: { type: "status", code: 500 } }] })
    const error = errorOf(await runStart(invalidWithCauses(base, "delete", "trainjobs"), open, requestOf(1)))
    expect(error._tag).toBe("ErrOutcomeUnknown")
    const call = `delete trainjobs ${namespace}/${name1}`
    expect(error.reasons.at(-1)).toBe(
      `stopping the TrainJob failed: ${call}: Invalid (422): refused; ${call}: metadata.finalizers: held; ${call}: metadata.uid: mismatch`
    )
    expect(stored(base, "trainjobs")).toHaveLength(1)
  })

  it("a creator that must stop its TrainJob leaves it when a concurrent Start adopted it first (marked the copy): ErrOutcomeUnknown", async () => {
    const base = simOf({ faults: [{ verb: "get", resource: "trainjobs", nth: 1, times: RETRY_POLICY.tries, action: { type: "status", code: 500, message: "read-back broke" } }] })
    // Between the creator's owner patch and its read-back, another Start of the request adopts the TrainJob.
    const recorded = afterCall(base, "patch", "trainingruntimes", () => {
      const copy = copyOf(base)!
      const uid = String(uidOf(jobOf(base)))
      base.sim.system.update("trainingruntimes", { ...copy, metadata: { ...copy.metadata, annotations: { ...(copy.metadata?.["annotations"] as object), [adoptionMark(plain)]: uid } } })
    }, true)
    const error = errorOf(await runStart(recorded, open, requestOf(1)))
    expect(error._tag).toBe("ErrOutcomeUnknown")
    expect(error.reasons[0]).toBe("the TrainJob could not be read back")
    expect(error.reasons.at(-1)).toBe("a concurrent Start of this request adopted the TrainJob, so it was left as it is")
    expect(error).toMatchObject({ ref: { namespace, name: name1, uid: uidOf(jobOf(base)) } })
    expect(stored(base, "trainjobs")).toHaveLength(1)
    expect(ownerUids(copyOf(base))).toEqual([uidOf(jobOf(base))])
    expect(callsOf(base, "delete", "trainjobs")).toEqual([])
  })

  it("a TrainJob stopped after a failure is deleted only if it is still the one this Start created", async () => {
    const recorded = simOf({ faults: [{ verb: "get", resource: "trainjobs", action: { type: "status", code: 503 } }] })
    errorOf(await runStart(recorded, open, requestOf(1)))
    const [deleted] = callsOf(recorded, "delete", "trainjobs")
    const created = callsOf(recorded, "create", "trainjobs")[0]?.outcome
    const uid = created?.kind === "answered" ? (created.response.body as KubeObject).metadata?.["uid"] : undefined
    expect(uid).toBeTypeOf("string")
    expect(deleted?.request.body).toMatchObject({ preconditions: { uid } })
  })

  it("a failure after adopting leaves the TrainJob and says so", async () => {
    const config = configOf("kueue")
    const recorded = simOf({
      controllers: { kueue: { queues: { "team-queue": { admissionChecks: ["dispatch-check"] } }, workloadDelayMs: 40_000 } },
      faults: [{ verb: "create", resource: "trainjobs", nth: 1, action: { type: "drop" } }]
    })
    const inFlight = makeInFlight()
    errorOf(await runStart(recorded, backendOf(config), requestOf(1), inFlight))
    const error = errorOf(await runStart(recorded, backendOf(config), requestOf(1), inFlight))
    expect(error._tag).toBe("ErrRejected")
    expect(error.reasons.at(-1)).toBe("the TrainJob existed before this Start, so it was left as it is")
    expect(error.reasons[0]).toBe("no ready Workload within 30000 ms")
  })

  it("waits for this TrainJob's Workload, not another job's that is ready", async () => {
    const config = configOf("kueue")
    const recorded = simOf()
    suspendOnCreate(recorded)
    recorded.sim.addController(scriptedKueue({ gate: true, check: true, serves: (name) => name === name1 }))
    valueOf(await runStart(recorded, backendOf(config), requestOf(1)))
    const error = errorOf(await runStart(recorded, backendOf(config), requestOf(2)))
    expect(error._tag).toBe("ErrRejected")
    expect(error.reasons).toEqual(["no ready Workload within 30000 ms", "no Workload exists for the TrainJob yet"])
    expect(stored(recorded, "trainjobs").map((j) => j.metadata?.["name"])).toEqual([name1])
  })

  it("in plain mode a config's kueue section changes nothing: no Workload is waited for", async () => {
    const config = configOf("plain", { kueue: { queue: "team-queue", admissionCheck: "dispatch-check" } })
    const recorded = simOf()
    expect(valueOf(await runStart(recorded, backendOf(config), requestOf(1)))).toMatchObject({ created: true, gateClosed: true })
    expect(callsOf(recorded, "list", "workloads")).toEqual([])
  })

  it("a Workload list that keeps failing names the list's failure", async () => {
    const config = configOf("kueue")
    const recorded = simOf({ faults: [{ verb: "list", resource: "workloads", action: { type: "status", code: 500, message: "list broke" } }] })
    suspendOnCreate(recorded)
    recorded.sim.addController(scriptedKueue({ gate: true, check: true }))
    const error = errorOf(await runStart(recorded, backendOf(config), requestOf(1)))
    expect(error._tag).toBe("ErrRejected")
    expect(error.reasons[0]).toBe("no ready Workload within 30000 ms")
    expect(error.reasons.slice(1).join(" ")).toContain("list broke")
    expect(stored(recorded, "trainjobs")).toEqual([])
  })
})

/** Runs Start on TestClock, recording its spans and its log lines (message, level, annotations). */
const startRecorded = async (recorded: RecordedSim, request: unknown) => {
  const spans: Array<Tracer.NativeSpan> = []
  const logs: Array<{ readonly message: string; readonly level: string; readonly annotations: Readonly<Record<string, unknown>> }> = []
  const tracer = Tracer.make({
    span: (options) => {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    }
  })
  const logger = Logger.make((options) =>
    void logs.push({
      message: String(Array.isArray(options.message) ? options.message.join(" ") : options.message),
      level: options.logLevel,
      annotations: options.fiber.getRef(References.CurrentLogAnnotations)
    })
  )
  const exit = await runOnTestClock(
    start(open, request).pipe(
      Effect.withTracer(tracer),
      Effect.provideService(References.MinimumLogLevel, "All"),
      Effect.provide(Layer.mergeAll(SimCluster(recorded.face, { callMs: plain.timeouts.callMs }), Layer.succeed(InFlight, makeInFlight()), Logger.layer([logger])))
    )
  )
  return { spans, logs, exit }
}

describe("Start's spans and log lines", () => {
  it("span every step under dispatch.start with the job, submission and name; log each step and the outcome", async () => {
    const { spans, logs, exit } = await startRecorded(simOf(), requestOf(1, { submission: 3 }))
    const result = valueOf(exit)
    expect(spans.map((s) => s.name)).toContain("dispatch.start")
    const readRuntime = spans.find((s) => s.name === "dispatch.start.readRuntime")
    expect(Object.fromEntries(readRuntime?.attributes ?? [])).toMatchObject({ "dispatch.job": requestOf(1).job, "dispatch.submission": 3, "dispatch.name": trainJobNameOf(1, 3) })
    expect(logs.filter((l) => l.message === "start: readBack done")).toHaveLength(1)
    const done = logs.find((l) => l.message === "start: TrainJob created with its start gate closed")
    expect(done?.annotations).toMatchObject({ uid: result.uid, gateClosed: true, job: requestOf(1).job })
  })

  it("a Start whose read-back fails spans the stop that follows, after the failed step", async () => {
    const { spans, exit } = await startRecorded(simOf({ faults: [{ verb: "get", resource: "trainjobs", action: { type: "status", code: 503, message: "try later" } }] }), requestOf(1))
    expect(errorOf(exit)._tag).toBe("ErrRejected")
    const names = spans.map((s) => s.name).filter((n) => n === "dispatch.start.readBack" || n === "dispatch.start.stopAfterFailure")
    expect(names).toEqual(["dispatch.start.readBack", "dispatch.start.stopAfterFailure"])
  })

  it("a retry on the job's frozen runtime spans the look for it and the render on it", async () => {
    const recorded = simOf()
    valueOf(await runStart(recorded, open, requestOf(1)))
    recorded.sim.system.delete("clustertrainingruntimes", undefined, "torch-distributed", "Background")
    const { spans, exit } = await startRecorded(recorded, requestOf(1))
    expect(valueOf(exit).created).toBe(false)
    // The source is gone: step 3 refuses it before any render, and the job's frozen copy is rendered instead.
    expect(spans.map((s) => s.name).filter((n) => n === "dispatch.start.frozenRuntime" || n === "dispatch.start.render")).toEqual([
      "dispatch.start.frozenRuntime",
      "dispatch.start.render"
    ])
  })

  it("an adopting Start says so in its last log line", async () => {
    const recorded = simOf()
    valueOf(await runStart(recorded, open, requestOf(1)))
    const { logs } = await startRecorded(recorded, requestOf(1))
    expect(logs.map((l) => l.message)).toContain("start: the TrainJob an earlier Start created is this request's")
  })

  it("a failed step logs its error: the tag, or the first reason of steps 7 to 9", async () => {
    const gated = await startRecorded(simOf({ faults: [{ verb: "get", resource: "clustertrainingruntimes", action: { type: "refuse" } }] }), requestOf(1))
    expect(gated.logs.find((l) => l.message === "start: readRuntime failed")?.annotations["error"]).toBe("ErrUnreachable")
    const owner = await startRecorded(simOf({ faults: [{ verb: "patch", resource: "trainingruntimes", action: { type: "status", code: 500 } }] }), requestOf(1))
    expect(owner.logs.find((l) => l.message === "start: setCopyOwner failed")?.annotations["error"]).toBe("the runtime copy's owner could not be set")
  })

  it("a request whose job is not a JobID carries the job, but no TrainJob name, on its spans", async () => {
    const { spans, exit } = await startRecorded(simOf(), { ...requestOf(1), job: "not-a-job-id" })
    expect(errorOf(exit)._tag).toBe("ErrInvalid")
    const decode = spans.find((s) => s.name === "dispatch.start.decodeRequest")
    expect(decode?.attributes.get("dispatch.job")).toBe("not-a-job-id")
    expect(spans.some((s) => s.attributes.has("dispatch.name"))).toBe(false)
    const untyped = await startRecorded(simOf(), { ...requestOf(1), job: 7 })
    expect(untyped.spans.find((s) => s.name === "dispatch.start.checkGates")?.attributes.has("dispatch.job")).toBe(false)
    expect(untyped.logs.length).toBeGreaterThan(0)
    expect(untyped.logs.some((l) => "job" in l.annotations)).toBe(false)
  })

  it.each([["null", null], ["undefined", undefined], ["a string", "start it"]])("a request that is %s is ErrInvalid, with nothing called", async (_, input) => {
    const recorded = simOf()
    const { exit } = await startRecorded(recorded, input)
    expect(errorOf(exit)._tag).toBe("ErrInvalid")
    expect(recorded.calls).toEqual([])
  })
})
