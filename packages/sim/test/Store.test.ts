import { test as propTest, fc } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import type { WatchEvent } from "../src/Api.ts"
import { changeLogCapacity, Store } from "../src/apiserver/store/Store.ts"
import { at, bareSimulator, trainJob } from "./SimFixture.ts"

const object = (namespace: string | undefined, name: string) => ({ metadata: { name, ...(namespace === undefined ? {} : { namespace }) } })

describe("store", () => {
  propTest.prop([fc.array(fc.tuple(fc.boolean(), fc.constantFrom("a", "b", "c")), { maxLength: 40 })])("stamps every write with a higher resourceVersion", (ops) => {
    const store = new Store()
    let last = 0
    for (const [remove, name] of ops) {
      const written = remove ? store.remove("things", "ns", name) : store.write("things", object("ns", name))
      if (written === undefined) continue
      const rv = Number((written.metadata as { resourceVersion: string }).resourceVersion)
      expect(rv).toBeGreaterThan(last)
      expect(store.currentRevision()).toBe(rv)
      last = rv
    }
  })

  propTest.prop([
    fc.uniqueArray(fc.tuple(fc.constantFrom("a", "ab", "b", "b-c"), fc.stringMatching(/^[a-z]{1,4}$/)), { maxLength: 30, selector: ([ns, n]) => `${ns}/${n}` }),
    fc.option(fc.constantFrom("a", "ab", "b", "b-c"), { nil: undefined }),
    fc.integer({ min: 1, max: 5 })
  ])("pages walk a namespace's objects in key order, counting the rest", (entries, namespace, limit) => {
    const store = new Store()
    for (const [ns, name] of entries) store.write("things", object(ns, name))
    const all = store.list("things", namespace).map((o) => `${String(o.metadata?.["namespace"])}/${String(o.metadata?.["name"])}`)
    expect(all).toEqual(entries.filter(([ns]) => namespace === undefined || ns === namespace).map(([ns, n]) => `${ns}/${n}`).sort())
    const walked: Array<string> = []
    let after: string | undefined
    for (let i = 0; i <= all.length; i++) {
      const page = store.page("things", { namespace, afterKey: after, limit, countRest: true })
      walked.push(...page.items.map((o) => `${String(o.metadata?.["namespace"])}/${String(o.metadata?.["name"])}`))
      expect(page.rest).toBe(all.length - walked.length)
      if (!page.more) break
      after = walked[walked.length - 1]
    }
    expect(walked).toEqual(all)
  })

  propTest.prop([fc.array(fc.tuple(fc.constantFrom("write", "remove", "list"), fc.constantFrom("x", "y"), fc.stringMatching(/^[a-z]{1,3}$/)), { maxLength: 60 })])(
    "keeps lists in key order while objects come and go",
    (ops) => {
      const store = new Store()
      const expected = new Set<string>()
      for (const [op, ns, name] of ops) {
        if (op === "write") {
          store.write("things", object(ns, name))
          expected.add(`${ns}/${name}`)
        } else if (op === "remove") {
          store.remove("things", ns, name)
          expected.delete(`${ns}/${name}`)
        } else {
          const listed = store.list("things").map((o) => `${String(o.metadata?.["namespace"])}/${String(o.metadata?.["name"])}`)
          expect(listed).toEqual([...expected].sort())
        }
      }
    }
  )

  propTest.prop([fc.array(fc.tuple(fc.oneof(fc.constantFrom("__proto__", "spec", "status", "kind"), fc.string()), fc.jsonValue()), { maxLength: 6 })])(
    "stores a deeply frozen copy of the object, stamped with its resourceVersion, whatever its keys",
    (entries) => {
      const fields = entries.filter(([key]) => key !== "metadata")
      const store = new Store()
      const stored = store.write("things", Object.fromEntries([["metadata", { name: "a" }], ...fields]))
      expect(JSON.stringify(stored)).toBe(JSON.stringify(Object.fromEntries([["metadata", { name: "a", resourceVersion: "1" }], ...fields])))
      expect(Object.getPrototypeOf(stored)).toBe(Object.prototype)
      const frozen = (value: unknown): boolean =>
        typeof value !== "object" || value === null || (Object.isFrozen(value) && Object.values(value).every(frozen))
      expect(frozen(stored)).toBe(true)
      expect(store.get("things", undefined, "a")).toBe(stored)
    }
  )

  it("replays changes after a revision until the log no longer reaches back", () => {
    const store = new Store()
    store.write("things", object(undefined, "first"))
    expect(store.changesSince(0)?.map((c) => c.type)).toEqual(["ADDED"])
    for (let i = 0; i < 2 * changeLogCapacity; i++) store.write("things", object(undefined, "busy"))
    expect(store.changesSince(0)).toBeUndefined()
    expect(store.changesSince(store.currentRevision() - 1)).toHaveLength(1)
  })

  it("answers a watch from a compacted resourceVersion 200, then one ERROR event with Status 410 Expired", async () => {
    const sim = bareSimulator()
    sim.system.create("trainjobs", trainJob("busy"))
    for (let i = 0; i < 2 * changeLogCapacity + 1; i++) {
      sim.system.updateStatus("trainjobs", { ...trainJob("busy"), metadata: { name: "busy", namespace: "default", resourceVersion: String(sim.system.get("trainjobs", "default", "busy")?.metadata?.["resourceVersion"]) }, status: { jobsStatus: [{ name: "node", active: i }] } })
    }
    const events: Array<WatchEvent> = []
    const watch = sim.watch({ verb: "watch", ...at("trainjobs"), resourceVersion: "1" }, (event) => events.push(event))
    expect(watch.outcome).toMatchObject({ kind: "answered", response: { code: 200 } })
    await Promise.resolve()
    // Later writes reach no one: the ERROR event ended the watch.
    sim.system.create("trainjobs", trainJob("later"))
    await Promise.resolve()
    expect(events).toEqual([
      {
        type: "ERROR",
        object: {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: `too old resource version: 1 (${sim.system.get("trainjobs", "default", "busy")?.metadata?.["resourceVersion"]})`,
          reason: "Expired",
          code: 410
        }
      }
    ])
    watch.stop()
  })

  it("sends nothing to an expired watch stopped before its ERROR event is due", async () => {
    const sim = bareSimulator()
    for (let i = 0; i < 2 * changeLogCapacity + 1; i++) sim.system.create("trainjobs", trainJob(`job-${i}`))
    const events: Array<WatchEvent> = []
    sim.watch({ verb: "watch", ...at("trainjobs"), resourceVersion: "1" }, (event) => events.push(event)).stop()
    await Promise.resolve()
    expect(events).toEqual([])
  })
})
