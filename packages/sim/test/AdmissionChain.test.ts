// Webhooks that say they never edit what they are handed (readOnly) get the server's own objects instead
// of copies, which spares two deep copies per write: any other webhook still gets copies it may edit, and
// the simulator's own webhooks store exactly what they stored when handed copies.
import { describe, expect, it } from "vitest"
import type { Admission, ObjectChange } from "../src/Api.ts"
import { kueueTrainJobWebhook, kueueWorkloadWebhook } from "../src/controllers/kueue/KueueWebhook.ts"
import { trainJobWebhook } from "../src/controllers/trainer/TrainJobWebhook.ts"
import { create, mergePatch, simulator, trainJob } from "./ControllersSim.ts"
import { at, bareSimulator, call, meta, read, trainJob as bareTrainJob } from "./SimFixture.ts"

describe("read-only admission webhooks", () => {
  it("hands a readOnly webhook the server's own objects, and any other webhook copies it may edit", () => {
    const sim = bareSimulator()
    const oldFrozen: Record<string, boolean> = {}
    const webhook = (name: string, readOnly: boolean): Admission => ({
      name,
      resource: "trainjobs",
      ...(readOnly ? { readOnly: true } : {}),
      admit: (_operation, object, old) => {
        if (old !== undefined) oldFrozen[name] = Object.isFrozen(old)
        // Edited in place, as a webhook handed its own copy may.
        if (!readOnly) (object["metadata"] as Record<string, unknown>)["labels"] = { edited: "in-place" }
        return { object }
      }
    })
    sim.addAdmission(webhook("reads.example.org", true))
    sim.addAdmission(webhook("edits.example.org", false))
    expect(call(sim, { verb: "create", ...at("trainjobs"), body: bareTrainJob("a") }).code).toBe(201)
    expect(call(sim, { verb: "patch", ...at("trainjobs"), name: "a", patchType: "merge", body: { spec: { suspend: true } } }).code).toBe(200)
    expect(oldFrozen).toEqual({ "reads.example.org": true, "edits.example.org": false })
    expect(meta(read(sim, "trainjobs", "a"))["labels"]).toEqual({ edited: "in-place" })
  })

  it("the simulator's own webhooks store the same objects whether handed copies or the server's own", () => {
    const run = (): ReadonlyArray<ObjectChange> => {
      const sim = simulator({ kueue: { queues: { team: { admissionChecks: ["check"] } } } })
      const changes: Array<ObjectChange> = []
      sim.onChange((change) => changes.push(change))
      // Kueue's webhook closes a queued job; Trainer's stamps the times of runtime patches.
      expect(create(sim, "trainjobs", trainJob("queued", {}, { labels: { "kueue.x-k8s.io/queue-name": "team" } })).code).toBe(201)
      const patched = create(sim, "trainjobs", trainJob("patched", { suspend: true, runtimePatches: [{ manager: "example.org/tuner", trainingRuntimeSpec: { template: { spec: { replicatedJobs: [{ name: "node", template: { spec: { template: { spec: { nodeSelector: { pool: "a" }, containers: [{ name: "node" }] } } } } }] } } } }] }))
      expect(patched.code).toBe(201)
      sim.advance(2_000)
      mergePatch(sim, "trainjobs", "patched", { spec: { suspend: false } })
      mergePatch(sim, "trainjobs", "queued", { metadata: { labels: { extra: "yes" } } })
      sim.advance(5_000)
      return changes
    }
    const handedOwn = run()
    const webhooks: ReadonlyArray<{ readOnly?: boolean }> = [trainJobWebhook, kueueTrainJobWebhook, kueueWorkloadWebhook]
    for (const w of webhooks) (w as { readOnly?: boolean }).readOnly = false
    try {
      const handedCopies = run()
      expect(handedOwn.length).toBeGreaterThan(10)
      expect(handedOwn).toEqual(handedCopies)
      const kinds = new Set(handedOwn.map((c) => c.resource))
      expect([...kinds]).toEqual(expect.arrayContaining(["trainjobs", "jobsets", "jobs", "workloads", "events"]))
    } finally {
      for (const w of webhooks) (w as { readOnly?: boolean }).readOnly = true
    }
  })
})
