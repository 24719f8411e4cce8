// A service killed mid-dispatch and restarted: what the killed process left half done is finished by the next
// attempt, never left behind.
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { KubeObject } from "@dispatch/sim"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { dispatchingService, jobWhen, namespace, probeNamePrefix, registerSimWorld, simWorld, submit, type DispatchingService, type SimWorld } from "./ClusterWorld.ts"

const ownersOf = (object: KubeObject | undefined) => (object?.metadata?.["ownerReferences"] as Array<{ kind: string; name: string; uid: string }> | undefined) ?? []

describe("a service killed between the TrainJob's create (step 6) and the copy's owner patch (step 7)", () => {
  let dir = ""
  let world: SimWorld | undefined
  const services: Array<DispatchingService> = []
  let armed = true
  let reachStep7: () => void = () => undefined
  const step7 = new Promise<string>((resolve) => (reachStep7 = () => resolve("reached")))
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "dispatch-takeover-"))
    // The first owner patch of a job's copy never reaches the simulator, and the service is then killed: the
    // TrainJob exists, the copy has no owner, and the job's claim is still held.
    world = await simWorld({}, (request) => {
      if (!armed || request.verb !== "patch" || request.resource !== "trainingruntimes" || (request.name ?? "").startsWith(probeNamePrefix)) return undefined
      armed = false
      reachStep7()
      return { kind: "unanswered" }
    })
  })
  afterAll(async () => {
    for (const s of services) await s.server.close()
    await world?.close()
    await rm(dir, { recursive: true, force: true })
  })

  test("the next attempt adopts the TrainJob and leaves the copy owned by it", async () => {
    if (world === undefined) throw new Error("no world")
    const options = { dataDir: join(dir, "data"), dispatch: { instance: "svc" } }
    const first = await dispatchingService(world, options)
    services.push(first)
    const w = await registerSimWorld(first.alice, "takeover")
    const job = await submit(first.alice, w)
    await step7
    // Closing interrupts the Start waiting on its owner patch: nothing of Start's own clean-up runs, as with SIGKILL.
    await first.server.close()
    const trainJobs = world.sim.system.list("trainjobs", namespace).filter((t) => !String(t.metadata?.["name"]).startsWith(probeNamePrefix))
    expect(trainJobs).toHaveLength(1)
    const name = String(trainJobs[0]?.metadata?.["name"])
    expect(ownersOf(world.sim.system.get("trainingruntimes", namespace, name))).toEqual([])

    // Restarted under its name, the service takes its claim over at once.
    const second = await dispatchingService(world, options)
    services.push(second)
    const started = await jobWhen(second.alice, job.id, (j) => j.status === "started" || j.status === "finished" || j.status === "failed", 60_000)
    // A second attempt at least; one that met the queue's restart probe in progress waits for it and comes again.
    expect(started.dispatch).toMatchObject({ trainJob: { name } })
    expect(started.dispatch.attempts).toBeGreaterThanOrEqual(2)
    const trainJob = world.sim.system.get("trainjobs", namespace, name) as KubeObject
    expect(ownersOf(world.sim.system.get("trainingruntimes", namespace, name))).toEqual([
      expect.objectContaining({ kind: "TrainJob", name, uid: trainJob.metadata?.["uid"] })
    ])
    const finished = await jobWhen(second.alice, job.id, (j) => j.status === "finished", 60_000)
    expect(finished.dispatch.state).toBe("done")
  })
})
