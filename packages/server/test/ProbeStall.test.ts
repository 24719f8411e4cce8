// A probe that must wait (an earlier probe's objects are still in its namespace, as a process killed mid-probe
// leaves them) holds up its own queue only, and says so: other queues dispatch, opened jobs are followed, and the
// waiting queue's gate and jobs say why they wait. The wait is never sat out: the leftover is removed instead.
import { torchRuntime } from "../../../test/fixtures/TorchRuntime.ts"
import { PROBE_JOB_ID, trainJobName } from "@dispatch/render"
import type { KubeObject } from "@dispatch/sim"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { dispatchingService, eventually, jobWhen, registerSimWorld, simQueueBody, simWorld, submit, type DispatchingService, type SimWorld } from "./ClusterWorld.ts"

const stuck = "stuck-team"
const probeName = trainJobName(PROBE_JOB_ID, 1)
// The probe's copy, left behind by a process that died during its start-up probe.
const leftoverCopy = { ...torchRuntime({ name: probeName, namespace: stuck }) } as KubeObject

/** A queue in the namespace holding the leftover, whose probe would wait ten minutes for it. */
const stuckQueueBody = (name: string) => {
  const body = simQueueBody(name)
  return { ...body, backend: { ...body.backend, config: { ...body.backend.config, namespace: stuck, timeouts: { call: "1s", workload: "10m", callBound: "2s" } } } }
}

describe("a probe waiting for a leftover probe copy", () => {
  let world: SimWorld | undefined
  let service: DispatchingService | undefined
  beforeAll(async () => {
    world = await simWorld({ objects: [torchRuntime({ name: "dioptra-torch", namespace: stuck }) as KubeObject, leftoverCopy] })
    service = await dispatchingService(world)
  })
  afterAll(async () => {
    await service?.server.close()
    await world?.close()
  })

  test("blocks only its own queue, whose gate and jobs say why; the others dispatch and finish meanwhile", async () => {
    if (world === undefined || service === undefined) throw new Error("not started")
    const { alice } = service
    // Registered first: with probes run one after another in a pass, its wait would come before every other queue's.
    const waiting = await registerSimWorld(alice, "stuck", stuckQueueBody("q-stuck"))
    const free = await registerSimWorld(alice, "free")
    const held = await submit(alice, waiting)
    const job = await submit(alice, free)
    expect((await jobWhen(alice, job.id, (j) => j.status === "finished", 60_000)).dispatch.state).toBe("done")
    // A second job on the free queue is dispatched and followed to its end while the probe still waits.
    const next = await submit(alice, free)
    await jobWhen(alice, next.id, (j) => j.status === "finished", 60_000)

    const gate = (await alice("GET", `/queues/${waiting.queue}`)).body.gate
    expect(gate).toMatchObject({ state: "proving", checkedOn: expect.any(String) })
    expect(gate.reason).toMatch(new RegExp(`^the probe runs since .* in namespace ${stuck}; it waits up to 602 s for a probe's objects already there`))
    const queued = (await alice("GET", `/jobs/${held.id}`)).body
    expect(queued).toMatchObject({ status: "queued", dispatch: { state: "pending", attempts: 0 } })
    expect(queued.dispatch.reason).toBe(`queue ${waiting.queue} is not open (proving): ${gate.reason}`)
    expect(world.sim.system.get("trainingruntimes", stuck, probeName)).toBeDefined()

    // Once the leftover is gone the probe goes on at its next look, proves the queue open, and the job runs.
    world.sim.system.delete("trainingruntimes", stuck, probeName)
    await eventually(async () => (await alice("GET", `/queues/${waiting.queue}`)).body.gate.state, (s) => s === "open", 60_000)
    await jobWhen(alice, held.id, (j) => j.status === "finished", 60_000)
  })
})
