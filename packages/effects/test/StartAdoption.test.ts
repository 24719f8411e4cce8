// A retried Start that finds the TrainJob of its name already there (it "adopts" it): after success,
// after Open, after an unanswered create. A retry never deletes a TrainJob it did not create, nor the
// runtime copy such a TrainJob runs on.
import { describe, expect, it } from "vitest"
import type { KubeObject } from "@dispatch/sim"
import { makeInFlight } from "../src/InFlight.ts"
import { backendOf, configOf, errorOf, namespace, openInStore, requestOf, runStart, simOf, stored, trainJobNameOf, valueOf } from "./StartFixture.ts"

const name1 = trainJobNameOf(1)
const kueueQueues = { kueue: { queues: { "team-queue": { admissionChecks: ["dispatch-check"] } } } }

const uidOf = (object: KubeObject | undefined): unknown => object?.metadata?.["uid"]
const ownerUids = (object: KubeObject | undefined): ReadonlyArray<unknown> =>
  ((object?.metadata?.["ownerReferences"] as ReadonlyArray<Record<string, unknown>> | undefined) ?? []).map((o) => o["uid"])

describe("a retried Start after Open", () => {
  it.each(["plain", "kueue"] as const)("in %s mode returns the same reference and deletes nothing", async (mode) => {
    const config = configOf(mode)
    const backend = backendOf(config)
    const recorded = simOf(mode === "kueue" ? { controllers: kueueQueues } : {})
    const first = valueOf(await runStart(recorded, backend, requestOf(1)))
    openInStore(recorded, config, name1)
    const retried = valueOf(await runStart(recorded, backend, requestOf(1)))
    expect(retried).toEqual({ ...first, created: false, gateClosed: false })
    expect(stored(recorded, "trainjobs").map(uidOf)).toEqual([first.uid])
    expect(ownerUids(recorded.sim.system.get("trainingruntimes", namespace, name1))).toEqual([first.uid])
    expect(recorded.calls.filter((c) => c.request.verb === "delete")).toEqual([])
  })
})

describe("a retried Start whose TrainJob create fails definitely", () => {
  it("leaves the copy an earlier Start's TrainJob owns (and runs on)", async () => {
    const config = configOf("plain")
    const recorded = simOf()
    const first = valueOf(await runStart(recorded, backendOf(config), requestOf(1)))
    recorded.sim.setFaults([{ verb: "create", resource: "trainjobs", action: { type: "status", code: 500 } }])
    expect(errorOf(await runStart(recorded, backendOf(config), requestOf(1)))._tag).toBe("ErrUnreachable")
    expect(stored(recorded, "trainjobs").map(uidOf)).toEqual([first.uid])
    expect(ownerUids(recorded.sim.system.get("trainingruntimes", namespace, name1))).toEqual([first.uid])
  })
})

describe("a retried Start whose TrainJob create fails definitely, after an unanswered create landed", () => {
  it("keeps the copy that TrainJob runs on, though step 7 never made it the owner", async () => {
    const config = configOf("plain")
    const recorded = simOf({ faults: [{ verb: "create", resource: "trainjobs", nth: 1, action: { type: "drop" } }] })
    const inFlight = makeInFlight()
    expect(errorOf(await runStart(recorded, backendOf(config), requestOf(1), inFlight))._tag).toBe("ErrOutcomeUnknown")
    const copy = recorded.sim.system.get("trainingruntimes", namespace, name1)
    recorded.sim.setFaults([{ verb: "create", resource: "trainjobs", action: { type: "refuse" } }])
    expect(errorOf(await runStart(recorded, backendOf(config), requestOf(1), inFlight))._tag).toBe("ErrUnreachable")
    expect(stored(recorded, "trainjobs")).toHaveLength(1)
    expect(uidOf(recorded.sim.system.get("trainingruntimes", namespace, name1))).toBe(uidOf(copy))
    recorded.sim.setFaults([])
    expect(valueOf(await runStart(recorded, backendOf(config), requestOf(1), inFlight)).uid).toBe(uidOf(stored(recorded, "trainjobs")[0]))
  })
})

describe("a retried Start that adopts a TrainJob and then fails", () => {
  it("keeps the TrainJob (ErrRejected with its reference) when its Workload does not come in time", async () => {
    const config = configOf("kueue")
    // The first create lands but its answer is lost; Kueue takes 40 s to make the Workload.
    const recorded = simOf({
      controllers: { kueue: { ...kueueQueues.kueue, workloadDelayMs: 40_000 } },
      faults: [{ verb: "create", resource: "trainjobs", nth: 1, action: { type: "drop" } }]
    })
    const inFlight = makeInFlight()
    expect(errorOf(await runStart(recorded, backendOf(config), requestOf(1), inFlight))._tag).toBe("ErrOutcomeUnknown")
    const landed = recorded.sim.system.get("trainjobs", namespace, name1)
    expect(landed).toBeDefined()
    const error = errorOf(await runStart(recorded, backendOf(config), requestOf(1), inFlight))
    expect(error._tag).toBe("ErrRejected")
    expect(error).toMatchObject({ ref: { namespace, name: name1, uid: uidOf(landed) } })
    expect(stored(recorded, "trainjobs").map(uidOf)).toEqual([uidOf(landed)])
    expect(ownerUids(recorded.sim.system.get("trainingruntimes", namespace, name1))).toEqual([uidOf(landed)])
  })

  it("keeps the runtime copy the existing TrainJob runs on when the adoption is refused, and hands it to that TrainJob", async () => {
    const config = configOf("plain")
    const recorded = simOf({ faults: [{ verb: "create", resource: "trainjobs", nth: 1, action: { type: "drop" } }] })
    const inFlight = makeInFlight()
    expect(errorOf(await runStart(recorded, backendOf(config), requestOf(1), inFlight))._tag).toBe("ErrOutcomeUnknown")
    const landed = recorded.sim.system.get("trainjobs", namespace, name1)
    const copy = recorded.sim.system.get("trainingruntimes", namespace, name1)
    // The same job, retried as a new attempt: its comment and attempt token differ, so it is not adopted.
    const error = errorOf(await runStart(recorded, backendOf(config), { ...requestOf(1), attempt: 2 }, inFlight))
    expect(error._tag).toBe("ErrRejected")
    expect(stored(recorded, "trainjobs").map(uidOf)).toEqual([uidOf(landed)])
    const kept = recorded.sim.system.get("trainingruntimes", namespace, name1)
    expect(uidOf(kept)).toBe(uidOf(copy))
    expect(ownerUids(kept)).toEqual([uidOf(landed)])
  })
})

/** What a user may do to the source runtime once the job is running. */
const sourceChanges = {
  "the source runtime is edited": (recorded: ReturnType<typeof simOf>, config: ReturnType<typeof configOf>) => {
    const source = recorded.sim.system.get("clustertrainingruntimes", undefined, "torch-distributed")!
    recorded.sim.system.update("clustertrainingruntimes", { ...source, spec: { ...(source["spec"] as object), mlPolicy: { numNodes: 3 } } })
    return config
  },
  "the source runtime is deleted": (recorded: ReturnType<typeof simOf>, config: ReturnType<typeof configOf>) => {
    recorded.sim.system.delete("clustertrainingruntimes", undefined, "torch-distributed", "Background")
    return config
  },
  "the source runtime is dropped from the config": (_recorded: ReturnType<typeof simOf>, config: ReturnType<typeof configOf>) => ({
    ...config,
    runtimes: config.runtimes.filter((r) => r.name !== "torch-distributed")
  })
} as const

describe("a retried Start after success, once the source runtime changed", () => {
  const cases = (["plain", "kueue"] as const).flatMap((mode) =>
    Object.keys(sourceChanges).flatMap((change) => [true, false].map((opened) => [mode, change as keyof typeof sourceChanges, opened] as const))
  )
  it.each(cases)("in %s mode, when %s (opened: %s), adopts the job on its frozen copy and reports its gate truthfully", async (mode, change, opened) => {
    const config = configOf(mode)
    const recorded = simOf(mode === "kueue" ? { controllers: kueueQueues } : {})
    const first = valueOf(await runStart(recorded, backendOf(config), requestOf(1)))
    expect(first).toMatchObject({ created: true, gateClosed: true })
    const frozen = recorded.sim.system.get("trainingruntimes", namespace, name1)!
    if (opened) openInStore(recorded, config, name1)
    const changed = sourceChanges[change](recorded, config)
    const from = recorded.calls.length
    const retried = valueOf(await runStart(recorded, backendOf(changed), requestOf(1)))
    expect(retried).toMatchObject({ ref: first.ref, uid: first.uid, created: false, gateClosed: !opened })
    expect(stored(recorded, "trainjobs").map(uidOf)).toEqual([first.uid])
    const copy = recorded.sim.system.get("trainingruntimes", namespace, name1)
    expect(uidOf(copy)).toBe(uidOf(frozen))
    expect(copy?.["spec"]).toEqual(frozen["spec"])
    expect(ownerUids(copy)).toEqual([first.uid])
    expect(recorded.calls.slice(from).filter((c) => c.request.verb === "delete" || c.request.verb === "create" && c.outcome.kind === "answered" && c.outcome.response.code === 201)).toEqual([])
  })

  it("still refuses a request whose runtime is gone when no job of its name exists", async () => {
    const config = configOf("plain")
    const recorded = simOf()
    sourceChanges["the source runtime is deleted"](recorded, config)
    expect(errorOf(await runStart(recorded, backendOf(config), requestOf(1)))._tag).toBe("ErrUnsupported")
    expect(stored(recorded, "trainingruntimes").filter((r) => String(r.metadata?.["name"]).startsWith("dj-"))).toEqual([])
  })

  it("does not adopt a copy that names another TrainJob of its name: the edited source is refused", async () => {
    const config = configOf("plain")
    const recorded = simOf()
    const first = valueOf(await runStart(recorded, backendOf(config), requestOf(1)))
    // The copy names a TrainJob of its name that is gone (an earlier one): it is not this job's runtime.
    const copy = recorded.sim.system.get("trainingruntimes", namespace, name1)!
    const owners = (copy.metadata?.["ownerReferences"] as ReadonlyArray<Record<string, unknown>>).map((o) => ({ ...o, uid: "00000000-0000-4000-8000-000000000000" }))
    recorded.sim.system.update("trainingruntimes", { ...copy, metadata: { ...copy.metadata, ownerReferences: owners } })
    sourceChanges["the source runtime is edited"](recorded, config)
    const error = errorOf(await runStart(recorded, backendOf(config), requestOf(1)))
    expect(error._tag).toBe("ErrRejected")
    expect(stored(recorded, "trainjobs").map(uidOf)).toEqual([first.uid])
  })
})
