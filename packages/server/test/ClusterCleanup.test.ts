// What the service leaves on the cluster and what removes it: retention deletes an ended job's TrainJob and copy
// once the retention has passed (service clock skipped past it), across a restart and after a failed try; the
// sweeper deletes copies no job of the service and no TrainJob owns, never one a job in progress will reuse.
// Every outcome is read from the simulator's store, over HTTP through client-node.
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { RETRY_POLICY } from "@dispatch/effects"
import { labelKeys, trainJobName as nameOf } from "@dispatch/render"
import type { KubeObject } from "@dispatch/sim"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import type { JobResponse } from "../src/wire/ApiSchemas.ts"
import type { Dispatcher, DispatchOptions } from "../src/index.ts"
import {
  dispatchingService,
  eventually,
  namespace,
  probeNamePrefix,
  registerSimWorld,
  simWorld,
  skippingClock,
  submit,
  trainJobName,
  type DispatchingService,
  type SimWorld
} from "./ClusterWorld.ts"
import type { Client } from "./Fixtures.ts"
import { testPostgres, type TestPostgres } from "./TestPostgres.ts"
import { pass, proven } from "./TestDispatcher.ts"

const hour = 3_600_000
const day = 24 * hour

const named = (world: SimWorld, plural: string, name: string) => world.sim.system.list(plural, namespace).filter((o) => o.metadata?.["name"] === name)

/** Copies and TrainJobs in the namespace, the probe's left out. */
const jobObjects = (world: SimWorld, plural: string) => world.sim.system.list(plural, namespace).filter((o) => !String(o.metadata?.["name"]).startsWith(probeNamePrefix))

/** Runs passes until the job is `status` with its dispatch done. */
const passUntil = async (dispatcher: Dispatcher, alice: Client, id: number, done: (job: JobResponse) => boolean) =>
  eventually(
    async (): Promise<JobResponse> => {
      await pass(dispatcher)
      return (await alice("GET", `/jobs/${id}`)).body
    },
    done
  )

const metric = async (service: DispatchingService, name: string): Promise<number> => {
  const text = await (await fetch(`${service.server.url}/metrics`)).text()
  const line = text.split("\n").find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`))
  return line === undefined ? 0 : Number(line.split(" ").at(-1))
}

/** A service on `world` that runs passes only when told, with its log lines kept; its database is in memory,
 * in `dataDir`, or the PostgreSQL `databaseUrl` names. */
const service = async (world: SimWorld, clock: () => number, dispatch: Partial<DispatchOptions>, store: { readonly dataDir?: string; readonly databaseUrl?: string } = {}) => {
  const log: Array<string> = []
  const running = await dispatchingService(world, {
    clock,
    ...store,
    dispatch: { autorun: false, syncMs: 0, cleanupEveryMs: 0, log: (line) => void log.push(line), ...dispatch }
  })
  const dispatcher = running.server.dispatcher
  if (dispatcher === undefined) throw new Error("no dispatcher")
  await pass(dispatcher)
  await proven(dispatcher)
  return { ...running, dispatcher, log }
}

describe("retention", { timeout: 180_000 }, () => {
  let world: SimWorld | undefined
  let dir = ""
  beforeAll(async () => {
    world = await simWorld()
    dir = await mkdtemp(join(tmpdir(), "dispatch-retention-"))
  })
  afterAll(async () => {
    await world?.close()
    await rm(dir, { recursive: true, force: true })
  })

  test("a finished job keeps its TrainJob and copy for the retention, then loses them; its status and history stay", async () => {
    if (world === undefined) throw new Error("no world")
    const clock = skippingClock()
    const s = await service(world, clock.now, {})
    try {
      const w = await registerSimWorld(s.alice, "retained")
      const job = await submit(s.alice, w)
      const finished = await passUntil(s.dispatcher, s.alice, job.id, (j) => j.status === "finished" && j.dispatch.state === "done")
      const name = trainJobName(finished)
      const before = await metric(s, "dispatch_retention_removed_total")
      // Just short of the default 24 h: everything stays.
      clock.skip(day - 5 * 60_000)
      expect((await pass(s.dispatcher)).removed).toBe(0)
      expect(named(world, "trainjobs", name)).toHaveLength(1)
      expect(named(world, "trainingruntimes", name)).toHaveLength(1)
      clock.skip(10 * 60_000)
      expect((await pass(s.dispatcher)).removed + (await pass(s.dispatcher)).removed).toBe(1)
      expect(named(world, "trainjobs", name)).toEqual([])
      await eventually(async () => named(world!, "trainingruntimes", name).length, (n) => n === 0)
      expect(s.log.filter((l) => l.startsWith(`dispatch retention: removed the TrainJob and runtime copy of job ${job.id} `))).toHaveLength(1)
      expect(await metric(s, "dispatch_retention_removed_total")).toBe(before + 1)
      // Later passes leave it be: it is removed once.
      expect((await pass(s.dispatcher)).removed).toBe(0)
      const after = (await s.alice("GET", `/jobs/${job.id}`)).body
      expect(after).toMatchObject({ status: "finished", dispatch: { state: "done" } })
      expect((await s.alice("GET", `/jobs/${job.id}/status`)).body.history.map((h: { status: string }) => h.status)).toEqual(["queued", "started", "finished"])
    } finally {
      await s.server.close()
    }
  })

  test("a removal that fails is tried again, and a restarted service honours what the database says", async () => {
    if (world === undefined) throw new Error("no world")
    const dataDir = join(dir, "data")
    const clock = skippingClock()
    const settings = { retentionMs: hour, instance: "svc" }
    const first = await service(world, clock.now, settings, { dataDir })
    let name = ""
    let id = 0
    try {
      const w = await registerSimWorld(first.alice, "restarted")
      id = (await submit(first.alice, w)).id
      name = trainJobName(await passUntil(first.dispatcher, first.alice, id, (j) => j.status === "finished" && j.dispatch.state === "done"))
    } finally {
      await first.server.close()
    }
    // The service was down when the retention passed; the next one, started later, removes the job's objects.
    clock.skip(hour + 60_000)
    // Stop rides out a passing fault in place (RETRY_POLICY.tries in all): the first removal fails only when every one of its tries does.
    world.sim.setFaults([{ verb: "delete", resource: "trainjobs", name, nth: 1, times: RETRY_POLICY.tries, action: { type: "status", code: 503 } }])
    const second = await service(world, clock.now, settings, { dataDir })
    try {
      await eventually(async () => second.log.some((l) => l.startsWith(`dispatch retention: job ${id}: not removed yet: ErrUnreachable`)), (seen) => seen || named(world!, "trainjobs", name).length === 0)
      expect(second.log.filter((l) => l.startsWith(`dispatch retention: job ${id}: not removed yet`)).length).toBeGreaterThanOrEqual(1)
      expect(named(world, "trainjobs", name)).toHaveLength(1)
      await eventually(
        async () => {
          await pass(second.dispatcher)
          return named(world!, "trainjobs", name).length + named(world!, "trainingruntimes", name).length
        },
        (n) => n === 0
      )
      // The pass that saw the objects go may have found the copy still being collected ("still on the cluster"): the
      // removal is recorded by a later pass, so passes go on until it is.
      await eventually(
        async () => {
          await pass(second.dispatcher)
          return second.log.filter((l) => l.startsWith(`dispatch retention: removed the TrainJob and runtime copy of job ${id} `)).length
        },
        (n) => n >= 1
      )
      expect(second.log.filter((l) => l.startsWith(`dispatch retention: removed the TrainJob and runtime copy of job ${id} `))).toHaveLength(1)
    } finally {
      world.sim.setFaults([])
      await second.server.close()
    }
  })
})

describe("retention with two replicas on one PostgreSQL", { timeout: 180_000 }, () => {
  let postgres: TestPostgres | undefined
  let world: SimWorld | undefined
  beforeAll(async () => {
    postgres = await testPostgres()
    world = await simWorld()
  })
  afterAll(async () => {
    await world?.close()
    await postgres?.release()
  })

  test("both pass at once after the retention: the job's objects are removed, by one of them, once", async () => {
    if (postgres === undefined || world === undefined) throw new Error("not started")
    const clock = skippingClock()
    const store = { databaseUrl: postgres.url }
    const a = await service(world, clock.now, { retentionMs: hour }, store)
    const b = await service(world, clock.now, { retentionMs: hour }, store)
    try {
      const w = await registerSimWorld(a.alice, `replicas-${Date.now()}`)
      const id = (await submit(a.alice, w)).id
      const name = trainJobName(await passUntil(a.dispatcher, a.alice, id, (j) => j.status === "finished" && j.dispatch.state === "done"))
      clock.skip(hour + 60_000)
      await eventually(
        async () => {
          await Promise.all([pass(a.dispatcher), pass(b.dispatcher)])
          return [...a.log, ...b.log].filter((l) => l.startsWith(`dispatch retention: removed the TrainJob and runtime copy of job ${id} `)).length
        },
        (n) => n >= 1
      )
      await Promise.all([pass(a.dispatcher), pass(b.dispatcher)])
      expect([...a.log, ...b.log].filter((l) => l.startsWith(`dispatch retention: removed the TrainJob and runtime copy of job ${id} `))).toHaveLength(1)
      expect(named(world, "trainjobs", name)).toEqual([])
      await eventually(async () => named(world!, "trainingruntimes", name).length, (n) => n === 0)
      expect((await a.alice("GET", `/jobs/${id}`)).body.status).toBe("finished")
    } finally {
      await a.server.close()
      await b.server.close()
    }
  })
})

describe("the sweeper", { timeout: 180_000 }, () => {
  let world: SimWorld | undefined
  // Copies made at the simulator's start look 30 days old to the service.
  beforeAll(async () => {
    world = await simWorld({ startTime: Date.now() - 30 * day })
  })
  afterAll(async () => world?.close())

  /** A copy dispatch would have made for a JobID, without an owner: what a killed process or a late create leaves. */
  const leftover = (w: SimWorld, job: string): string => {
    const runtime = w.sim.system.get("trainingruntimes", namespace, "dioptra-torch") as KubeObject
    const name = nameOf(job, 1)
    const keys = labelKeys({ labelDomain: "dispatch.phpboyscout.uk" })
    const answer = w.sim.system.create("trainingruntimes", {
      apiVersion: String(runtime["apiVersion"]),
      kind: "TrainingRuntime",
      metadata: { name, namespace, labels: { [keys.jobId]: job, [keys.submission]: "1", [keys.generation]: "1" } },
      spec: runtime["spec"]
    })
    expect(answer.code).toBe(201)
    return name
  }

  test("a leftover copy older than the grace is deleted and reported in the log and the metrics; a younger grace's copy stays", async () => {
    if (world === undefined) throw new Error("no world")
    const lenient = await service(world, () => Date.now(), { sweepGraceMs: 60 * day })
    const orphan = leftover(world, "01JD8X2Q4M7N9P3R5S6T8V0W1A")
    try {
      await registerSimWorld(lenient.alice, "sweep-lenient")
      await pass(lenient.dispatcher)
      await proven(lenient.dispatcher)
      expect((await pass(lenient.dispatcher)).swept).toBe(0)
      expect(named(world, "trainingruntimes", orphan)).toHaveLength(1)
    } finally {
      await lenient.server.close()
    }
    const strict = await service(world, () => Date.now(), { sweepGraceMs: day })
    try {
      await registerSimWorld(strict.alice, "sweep-strict")
      const before = await metric(strict, `dispatch_sweeper_deleted_total{namespace="${namespace}"}`)
      const swept = await eventually(() => pass(strict.dispatcher), (p) => p.swept > 0)
      expect(swept.swept).toBe(1)
      expect(named(world, "trainingruntimes", orphan)).toEqual([])
      expect(strict.log).toEqual([expect.stringMatching(new RegExp(`^dispatch sweeper: deleted TrainingRuntime ${namespace}/${orphan} \\(uid [^)]+\\) of job 01JD8X2Q4M7N9P3R5S6T8V0W1A: no TrainJob owns it`))])
      expect(await metric(strict, `dispatch_sweeper_deleted_total{namespace="${namespace}"}`)).toBe(before + 1)
    } finally {
      await strict.server.close()
    }
  })

  test("a running job's copy and a retrying job's ownerless copy are kept, however old; a failed list is retried", async () => {
    if (world === undefined) throw new Error("no world")
    const s = await service(world, () => Date.now(), { sweepGraceMs: hour, backoff: { baseMs: 60 * 60_000, maxMs: 60 * 60_000 } })
    try {
      const w = await registerSimWorld(s.alice, "sweep-keep")
      await pass(s.dispatcher)
      await proven(s.dispatcher)
      const running = await submit(s.alice, w, { description: "runs" })
      const runningJob = await passUntil(s.dispatcher, s.alice, running.id, (j) => j.status === "started" || j.status === "finished")
      const runningName = trainJobName(runningJob)
      // The next job's TrainJob create is refused with 503 every time: its Start leaves the copy without an owner
      // and the job waits (an hour) for its next attempt, which reuses the copy.
      world.sim.setFaults([{ verb: "create", resource: "trainjobs", action: { type: "status", code: 503 } }])
      const retrying = await submit(s.alice, w, { description: "retries" })
      const waiting = await eventually(
        async () => {
          await pass(s.dispatcher)
          return (await s.alice("GET", `/jobs/${retrying.id}`)).body
        },
        (j) => j.dispatch.attempts >= 1 && j.dispatch.state === "pending"
      )
      const copies = jobObjects(world, "trainingruntimes").map((o) => String(o.metadata?.["name"]))
      const retryingCopy = copies.find((n) => n !== runningName)
      expect(retryingCopy, JSON.stringify(waiting.dispatch)).toBeDefined()
      expect(named(world, "trainjobs", retryingCopy!)).toEqual([])
      // A list answered 503: the sweep fails, is logged, and the next pass sweeps again.
      world.sim.setFaults([
        { verb: "create", resource: "trainjobs", action: { type: "status", code: 503 } },
        { verb: "list", resource: "trainingruntimes", nth: 1, action: { type: "status", code: 503 } }
      ])
      const failures = await metric(s, `dispatch_sweeper_failures_total{namespace="${namespace}"}`)
      s.log.length = 0
      await pass(s.dispatcher)
      expect(s.log).toEqual([expect.stringMatching(new RegExp(`^dispatch sweeper: namespace ${namespace}: ErrUnreachable: `))])
      expect(await metric(s, `dispatch_sweeper_failures_total{namespace="${namespace}"}`)).toBe(failures + 1)
      const report = await pass(s.dispatcher)
      expect(report.swept).toBe(0)
      expect(named(world, "trainingruntimes", runningName)).toHaveLength(1)
      expect(named(world, "trainingruntimes", retryingCopy!)).toHaveLength(1)
      expect(s.log.filter((l) => l.includes("deleted"))).toEqual([])
    } finally {
      world.sim.setFaults([])
      await s.server.close()
    }
  })
})
