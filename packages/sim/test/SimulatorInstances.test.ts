// Two simulators in one process, configured differently (the kinds they serve, the first adding the
// documented Widget; their fault rules; their controllers' options), each over its own HTTP face:
// neither sees the other's configuration or objects, in process or on the wire.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { KubeObject } from "../src/Api.ts"
import { builtinKinds } from "../src/kinds/Builtin.ts"
import { trainJobState } from "@dispatch/kube"
import { Simulator } from "../src/Simulator.ts"
import { type Served, runtime, serve, trainJob } from "./HttpFixture.ts"
import { call } from "./SimFixture.ts"
import { widget } from "./WidgetKind.ts"

const widgetBody = (name: string, size: number): KubeObject => ({ apiVersion: "example.com/v1", kind: "Widget", metadata: { name }, spec: { size } })
const widgetsAt = { group: "example.com", version: "v1", resource: "widgets", namespace: "default" } as const
const configMapsAt = { group: "", version: "v1", resource: "configmaps", namespace: "default" } as const
const configMap = (name: string): KubeObject => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { a: "1" } })
const refusedConfigMaps = [{ verb: "create", resource: "configmaps", action: { type: "status", code: 503, message: "first simulator's fault" } }] as const

describe("two simulators in one process", () => {
  it("keep their own kinds, fault rules and controller options", () => {
    const first = new Simulator({ seed: 1, kinds: [...builtinKinds, widget], faults: refusedConfigMaps, objects: [runtime("torch-distributed")], controllers: { trainer: { runTimeMs: 2_000 } } })
    const second = new Simulator({ seed: 1, objects: [runtime("torch-distributed")], controllers: { trainer: { runTimeMs: 600_000 } } })

    // Kinds: the first serves widgets and applies their rule; the second has no such path.
    expect(call(first, { verb: "create", ...widgetsAt, body: widgetBody("w", 2) }).code).toBe(201)
    expect(call(first, { verb: "create", ...widgetsAt, body: widgetBody("small", 0) })).toMatchObject({ code: 422, body: { reason: "Invalid" } })
    expect(call(second, { verb: "create", ...widgetsAt, body: widgetBody("w", 2) }).code).toBe(404)
    expect(call(second, { verb: "list", ...widgetsAt }).code).toBe(404)
    expect(first.kinds.byResource("widgets")).toBe(widget)
    expect(second.kinds.byResource("widgets")).toBeUndefined()

    // Fault rules: the first's refuse its ConfigMaps, the second's let them in, and replacing one plan leaves the other.
    expect(call(first, { verb: "create", ...configMapsAt, body: configMap("c") }).code).toBe(503)
    expect(call(second, { verb: "create", ...configMapsAt, body: configMap("c") }).code).toBe(201)
    second.setFaults([{ verb: "create", resource: "configmaps", action: { type: "status", code: 429 } }])
    expect(call(first, { verb: "create", ...configMapsAt, body: configMap("d") }).code).toBe(503)
    first.setFaults([])
    expect(call(first, { verb: "create", ...configMapsAt, body: configMap("d") }).code).toBe(201)
    expect(call(second, { verb: "create", ...configMapsAt, body: configMap("d") }).code).toBe(429)

    // Controller options: the same TrainJob, stepped in turns, ends in the first and still runs in the second.
    expect(call(first, { verb: "create", group: "trainer.kubeflow.org", version: "v1alpha1", resource: "trainjobs", namespace: "default", body: trainJob("job") }).code).toBe(201)
    expect(call(second, { verb: "create", group: "trainer.kubeflow.org", version: "v1alpha1", resource: "trainjobs", namespace: "default", body: trainJob("job") }).code).toBe(201)
    for (let i = 0; i < 30; i++) {
      first.advance(1_000)
      second.advance(1_000)
    }
    expect(trainJobState(first.system.get("trainjobs", "default", "job") ?? {}).state).toBe("Complete")
    expect(trainJobState(second.system.get("trainjobs", "default", "job") ?? {}).state).toBe("Running")

    // What each stores is its own.
    expect(first.system.list("configmaps", "default").map((c) => c.metadata?.["name"])).toEqual(["d"])
    expect(second.system.list("configmaps", "default").map((c) => c.metadata?.["name"])).toEqual(["c"])
    expect(first.system.list("widgets", "default").map((w) => w.metadata?.["name"])).toEqual(["w"])
  })

  describe("over HTTP", () => {
    let first: Served
    let second: Served
    beforeAll(async () => {
      first = await serve({ kinds: [...builtinKinds, widget] })
      second = await serve({})
    })
    afterAll(async () => {
      await first?.close()
      await second?.close()
    })

    const get = async (served: Served, path: string): Promise<{ readonly status: number; readonly body: Record<string, unknown> }> => {
      const response = await fetch(`${served.server.url}${path}`)
      return { status: response.status, body: (await response.json()) as Record<string, unknown> }
    }

    it("route, discover and describe only the kinds each serves", async () => {
      expect((await get(first, "/apis/example.com/v1/namespaces/default/widgets")).status).toBe(200)
      expect((await get(second, "/apis/example.com/v1/namespaces/default/widgets")).status).toBe(404)
      const groups = async (served: Served) => ((await get(served, "/apis")).body["groups"] as ReadonlyArray<{ name: string }>).map((g) => g.name)
      expect(await groups(first)).toContain("example.com")
      expect(await groups(second)).not.toContain("example.com")
      expect((await groups(second)).length).toBe((await groups(first)).length - 1)
      const resources = await get(first, "/apis/example.com/v1")
      expect(resources.body["resources"]).toEqual([expect.objectContaining({ name: "widgets", kind: "Widget", shortNames: ["wd"] })])
      expect((await get(second, "/apis/example.com/v1")).status).toBe(404)
      const openapi = async (served: Served) => Object.keys((await get(served, "/openapi/v3")).body["paths"] as Record<string, unknown>)
      expect(await openapi(first)).toContain("apis/example.com/v1")
      expect(await openapi(second)).not.toContain("apis/example.com/v1")
    })
  })
})
