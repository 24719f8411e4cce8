import { describe, expect, it } from "vitest"
import type { ApiRequest, WatchEvent } from "../src/Api.ts"
import type { Simulator } from "../src/Simulator.ts"
import { at, bareSimulator, call, created, meta, trainJob } from "./SimFixture.ts"

const open = (sim: Simulator, extra: Partial<ApiRequest> = {}) => {
  const events: Array<WatchEvent> = []
  const watch = sim.watch({ verb: "watch", ...at("trainjobs"), ...extra }, (e) => events.push(e))
  const seen = () => events.map((e) => `${e.type}:${String(meta(e.object)["name"])}`)
  return { watch, events, seen }
}
const settle = () => new Promise<void>((resolve) => queueMicrotask(resolve))

describe("watch", () => {
  it("without a resourceVersion sends the current objects as ADDED, then changes as they happen", async () => {
    const sim = bareSimulator()
    created(sim, "trainjobs", trainJob("existing"))
    const { watch, seen, events } = open(sim)
    expect(watch.outcome).toEqual({ kind: "answered", response: { code: 200, body: null } })
    created(sim, "trainjobs", trainJob("new"))
    call(sim, { verb: "patch", ...at("trainjobs"), name: "new", patchType: "merge", body: { spec: { suspend: true } } })
    call(sim, { verb: "delete", ...at("trainjobs"), name: "existing" })
    await settle()
    expect(seen()).toEqual(["ADDED:existing", "ADDED:new", "MODIFIED:new", "DELETED:existing"])
    const rvs = events.slice(1).map((e) => Number(meta(e.object)["resourceVersion"]))
    expect(rvs).toEqual([...rvs].sort((a, b) => a - b))
    watch.stop()
    created(sim, "trainjobs", trainJob("after-stop"))
    expect(seen()).toHaveLength(4)
  })

  it("from a resourceVersion replays the changes after it", async () => {
    const sim = bareSimulator()
    const first = created(sim, "trainjobs", trainJob("a"))
    created(sim, "trainjobs", trainJob("b"))
    call(sim, { verb: "delete", ...at("trainjobs"), name: "a" })
    const { seen } = open(sim, { resourceVersion: String(meta(first)["resourceVersion"]) })
    await settle()
    expect(seen()).toEqual(["ADDED:b", "DELETED:a"])
  })

  it("sees an object entering or leaving its label selection as ADDED or DELETED", async () => {
    const sim = bareSimulator()
    const start = created(sim, "trainjobs", trainJob("moving"))
    const { seen } = open(sim, { labelSelector: "pick=yes", resourceVersion: String(meta(start)["resourceVersion"]) })
    const label = (value: string | null) => call(sim, { verb: "patch", ...at("trainjobs"), name: "moving", patchType: "merge", body: { metadata: { labels: { pick: value } } } })
    label("yes")
    call(sim, { verb: "patch", ...at("trainjobs"), name: "moving", patchType: "merge", body: { spec: { suspend: true } } })
    label(null)
    await settle()
    expect(seen()).toEqual(["ADDED:moving", "MODIFIED:moving", "DELETED:moving"])
  })

  it("filters by name and namespace", async () => {
    const sim = bareSimulator()
    const { seen } = open(sim, { fieldSelector: "metadata.name=wanted" })
    created(sim, "trainjobs", trainJob("other"))
    created(sim, "trainjobs", trainJob("wanted"))
    await settle()
    expect(seen()).toEqual(["ADDED:wanted"])
  })

  it("answers 400 for a bad selector or resourceVersion", () => {
    const sim = bareSimulator()
    expect(sim.watch({ verb: "watch", ...at("trainjobs"), labelSelector: "a in (" }, () => {}).outcome).toMatchObject({ response: { code: 400 } })
    expect(sim.watch({ verb: "watch", ...at("trainjobs"), resourceVersion: "abc" }, () => {}).outcome).toMatchObject({ response: { code: 400, body: { reason: "BadRequest" } } })
  })
})
