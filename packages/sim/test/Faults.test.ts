import { test as propTest, fc } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import type { ApiRequest, Outcome } from "../src/Api.ts"
import { FaultPlan, randomFaultPlan } from "../src/Faults.ts"
import { at, bareSimulator, read, trainJob } from "./SimFixture.ts"

const create = (name: string): ApiRequest => ({ verb: "create", ...at("trainjobs"), body: trainJob(name) })

describe("fault plan", () => {
  it("scripts 'the 2nd create of trainjobs succeeds on the server but its answer is lost'", () => {
    const sim = bareSimulator({ faults: [{ verb: "create", resource: "trainjobs", nth: 2, action: { type: "drop" } }] })
    expect(sim.handle(create("one")).kind).toBe("answered")
    expect(sim.handle(create("two"))).toEqual({ kind: "unanswered" })
    expect(read(sim, "trainjobs", "two")).toBeDefined()
    expect(sim.handle(create("three")).kind).toBe("answered")
  })

  it("refuses without applying, and answers a Status without applying", () => {
    const sim = bareSimulator({
      faults: [
        { verb: "create", name: "refused", action: { type: "refuse" } },
        { verb: "create", name: "busy", action: { type: "status", code: 429, retryAfterSeconds: 3 } }
      ]
    })
    expect(sim.handle(create("refused"))).toEqual({ kind: "refused" })
    expect(read(sim, "trainjobs", "refused")).toBeUndefined()
    const busy = sim.handle(create("busy"))
    expect(busy).toEqual({
      kind: "answered",
      response: {
        code: 429,
        headers: { "Retry-After": "3" },
        body: { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "Too many requests, please try again later.", reason: "TooManyRequests", details: { retryAfterSeconds: 3 }, code: 429 }
      }
    })
    expect(read(sim, "trainjobs", "busy")).toBeUndefined()
  })

  it("delays after applying", () => {
    const sim = bareSimulator({ faults: [{ verb: "create", action: { type: "delay", ms: 250 } }] })
    const outcome = sim.handle(create("late"))
    expect(outcome).toMatchObject({ kind: "answered", delayMs: 250, response: { code: 201 } })
    expect(read(sim, "trainjobs", "late")).toBeDefined()
  })

  it("counts matching calls per rule: nth and times", () => {
    const plan = new FaultPlan([{ verb: "get", resource: "trainjobs", nth: 2, times: 2, action: { type: "refuse" } }])
    const results = [1, 2, 3, 4, 5].map(() => plan.decide({ verb: "get", resource: "trainjobs" })?.type)
    expect(results).toEqual([undefined, "refuse", "refuse", undefined, undefined])
    expect(plan.decide({ verb: "list", resource: "trainjobs" })).toBeUndefined()
    const every = new FaultPlan([{ resource: "workloads", action: { type: "drop" } }])
    expect([1, 2, 3].map(() => every.decide({ verb: "patch", resource: "workloads" })?.type)).toEqual(["drop", "drop", "drop"])
    const firstTwo = new FaultPlan([{ times: 2, action: { type: "drop" } }])
    expect([1, 2, 3].map(() => firstTwo.decide({ verb: "patch", resource: "workloads" })?.type)).toEqual(["drop", "drop", undefined])
  })

  it("starts counting again with setFaults, and applies to watches", () => {
    const sim = bareSimulator({ faults: [{ verb: "get", nth: 1, action: { type: "status", code: 503 } }] })
    const get: ApiRequest = { verb: "get", ...at("namespaces"), name: "default" }
    expect(sim.handle(get)).toMatchObject({ response: { code: 503, body: { reason: "ServiceUnavailable" } } })
    expect(sim.handle(get)).toMatchObject({ response: { code: 200 } })
    sim.setFaults([{ verb: "get", nth: 1, action: { type: "status", code: 504 } }, { verb: "watch", action: { type: "refuse" } }])
    expect(sim.handle(get)).toMatchObject({ response: { code: 504, body: { reason: "Timeout" } } })
    expect(sim.watch({ verb: "watch", ...at("trainjobs") }, () => {}).outcome).toEqual({ kind: "refused" })
  })

  propTest.prop([fc.integer(), fc.double({ min: 0, max: 1, noNaN: true })], { numRuns: 30 })("a random plan with the same seed gives the same outcomes", (seed, rate) => {
    expect(randomFaultPlan(seed, { rate })).toEqual(randomFaultPlan(seed, { rate }))
    const run = (): ReadonlyArray<Outcome> => {
      const sim = bareSimulator({ seed, faults: randomFaultPlan(seed, { rate }) })
      return Array.from({ length: 20 }, (_, i) => sim.handle(i % 3 === 2 ? { verb: "list", ...at("trainjobs") } : create(`job-${i}`)))
    }
    expect(run()).toEqual(run())
  })

  it("makes random plans that fault about the rate asked, only on the verbs asked", () => {
    const plan = randomFaultPlan(1, { rate: 0.5, verbs: ["create"] })
    expect(plan.every((r) => r.verb === "create" && r.nth !== undefined)).toBe(true)
    expect(plan.length).toBeGreaterThan(16)
    expect(plan.length).toBeLessThan(48)
    expect(randomFaultPlan(1, { rate: 0 })).toEqual([])
    expect(randomFaultPlan(2)).not.toEqual(randomFaultPlan(3))
  })
})
