// Two job services in one process, each dispatching to its own simulator, configured differently: nothing
// one of them keeps (a registry, a connection pool, kept credentials, an idempotency record, a job id)
// leaks into the other. Each simulator holds only its own service's TrainJob, each service only its own job, and
// the same Idempotency-Key names a different request on each without either answering for the other.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { KubeCluster } from "@dispatch/effects"
import { kubeconfigFor, type KubeObject } from "@dispatch/sim"
import { Layer } from "effect"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import type { DispatchOptions } from "../src/index.ts"
import {
  dispatchingService,
  jobWhen,
  registerSimWorld,
  simKueue,
  simQueueBody,
  simWorld,
  trainJobCreates,
  trainJobName,
  type DispatchingService,
  type SimWorld
} from "./ClusterWorld.ts"
import { jobBody, tokens } from "./Fixtures.ts"

const envOf = (trainJob: KubeObject): ReadonlyMap<string, string> =>
  new Map(((trainJob["spec"] as { trainer?: { env?: ReadonlyArray<{ name: string; value?: string }> } }).trainer?.env ?? []).map((e) => [e.name, e.value ?? ""]))

const trainJobsOf = (world: SimWorld): ReadonlyArray<KubeObject> => world.sim.system.list("trainjobs", "ml-team")

// Each simulator accepts only its own token: credentials one service kept would be refused by the other's.
const tokenA = "sim-token-a-5b1d0e"
const tokenB = "sim-token-b-93c7f2"

describe("two services, each on its own simulator, in one process", () => {
  const worlds: Array<SimWorld> = []
  const services: Array<DispatchingService> = []
  const dir = mkdtempSync(join(tmpdir(), "dispatch-two-instances-"))
  // A KubeCluster on `world`'s HTTP face presenting `token`.
  const clusterOf = (world: SimWorld, token: string, callMs: number): DispatchOptions["cluster"] => {
    const path = join(dir, `kubeconfig-${token}`)
    writeFileSync(path, kubeconfigFor(world.server, { token }))
    return Layer.orDie(KubeCluster({ kubeconfigPath: path, callMs })) as DispatchOptions["cluster"]
  }
  beforeAll(async () => {
    // A: plain mode on a simulator without Kueue. B: Kueue mode on a simulator with Kueue's queues, another
    // seed and shorter runs, a service polling at its own pace, and a longer call timeout.
    worlds.push(await simWorld({ seed: 11, auth: { tokens: { [tokenA]: "*" } } }))
    worlds.push(await simWorld({ seed: 29, auth: { tokens: { [tokenB]: "*" } }, controllers: { kueue: simKueue, trainer: { runTimeMs: 1500 } } }, undefined, 8000))
    services.push(await dispatchingService(worlds[0]!, { dispatch: { cluster: clusterOf(worlds[0]!, tokenA, 5000) } }))
    services.push(await dispatchingService(worlds[1]!, { dispatch: { cluster: clusterOf(worlds[1]!, tokenB, 8000), pollMs: 45, syncMs: 150 } }))
  })
  afterAll(async () => {
    for (const service of services) await service.server.close()
    for (const world of worlds) await world.close()
    rmSync(dir, { recursive: true, force: true })
  })

  test("each job runs on its own service's simulator, reports back to its own service, and the same Idempotency-Key is each service's own", async () => {
    const [a, b] = services as [DispatchingService, DispatchingService]
    const [worldA, worldB] = worlds as [SimWorld, SimWorld]
    const registeredA = await registerSimWorld(a.alice, "a")
    const registeredB = await registerSimWorld(b.alice, "b", simQueueBody("q-b", "kueue"))
    const key = '"5f0c3c1e-2b7a-4d35-9a51-0d6c2e8f4b17"'
    const post = (service: DispatchingService, registered: typeof registeredA, description: string) =>
      fetch(`${service.server.url}/api/v1/experiments/${registered.experiment}/jobs`, {
        method: "POST",
        headers: { authorization: `Bearer ${tokens.alice}`, "content-type": "application/json", "idempotency-key": key },
        body: JSON.stringify(jobBody(registered.entrypoint, registered.queue, { description }))
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { readonly id: number; readonly description?: string } }))
    // The same key, the same principal and group, different requests, at the same time.
    const [postedA, postedB] = await Promise.all([post(a, registeredA, "on service A"), post(b, registeredB, "on service B")])
    expect(postedA).toMatchObject({ status: 200, body: { description: "on service A" } })
    expect(postedB).toMatchObject({ status: 200, body: { description: "on service B" } })

    const finishedA = await jobWhen(a.alice, postedA.body.id, (j) => j.status === "finished")
    const finishedB = await jobWhen(b.alice, postedB.body.id, (j) => j.status === "finished")
    const nameA = trainJobName(finishedA)
    const nameB = trainJobName(finishedB)
    expect(nameA).not.toBe(nameB)

    // What each simulator stores: its own service's TrainJob only, naming its own service and job.
    expect(trainJobsOf(worldA).map((t) => t.metadata?.["name"])).toEqual([nameA])
    expect(trainJobsOf(worldB).map((t) => t.metadata?.["name"])).toEqual([nameB])
    const [jobA] = trainJobsOf(worldA)
    const [jobB] = trainJobsOf(worldB)
    expect(envOf(jobA!).get("DIOPTRA_SERVICE_URL")).toBe(`${a.server.url}/api/v1`)
    expect(envOf(jobB!).get("DIOPTRA_SERVICE_URL")).toBe(`${b.server.url}/api/v1`)
    expect(envOf(jobA!).get("DIOPTRA_JOB_ID")).toBe(String(postedA.body.id))
    expect(envOf(jobB!).get("DIOPTRA_JOB_ID")).toBe(String(postedB.body.id))
    // Each simulator was called with its own service's token only, and asked to create only its own
    // service's TrainJob (the probes aside).
    expect(new Set(worldA.calls.map((c) => c.request.token))).toEqual(new Set([tokenA]))
    expect(new Set(worldB.calls.map((c) => c.request.token))).toEqual(new Set([tokenB]))
    expect([...trainJobCreates(worldA.calls).keys()]).toEqual([nameA])
    expect([...trainJobCreates(worldB.calls).keys()]).toEqual([nameB])
    // Each configuration held: Kueue admitted B's job through a Workload; A's simulator has no Kueue at all.
    expect(worldA.sim.system.list("workloads", "ml-team")).toEqual([])
    expect(worldB.sim.system.list("workloads", "ml-team").some((w) => ((w.metadata?.["ownerReferences"] as Array<{ name: string }> | undefined) ?? []).some((r) => r.name === nameB))).toBe(true)

    // Each workload reported back to its own service.
    await worldA.workload.settled()
    await worldB.workload.settled()
    for (const [service, id] of [[a, postedA.body.id], [b, postedB.body.id]] as const) {
      const logs = (await service.alice("GET", `/jobs/${id}/log`)).body.data.map((l: { message: string }) => l.message)
      expect(logs).toEqual(["workload started", "loaded the dataset", "training"])
    }
    // Each service holds its own job only, and answers the key with its own first answer.
    expect((await a.alice("GET", `/experiments/${registeredA.experiment}/jobs`)).body.totalNumResults).toBe(1)
    expect((await b.alice("GET", `/experiments/${registeredB.experiment}/jobs`)).body.totalNumResults).toBe(1)
    expect(await post(a, registeredA, "on service A")).toEqual(postedA)
    expect(await post(b, registeredB, "on service B")).toEqual(postedB)
  })
})
