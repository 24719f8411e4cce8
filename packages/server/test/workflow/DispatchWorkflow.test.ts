// The spike behind docs/architecture.md's "Why dispatch keeps leases, not effect/workflow": a job's dispatch as an
// effect/workflow workflow on effect/cluster's SQL-backed engine, on our own effect/sql clients (PGlite and
// PostgreSQL), against the simulator. What it shows: the engine runs on both; a cancel is an interruption whose
// compensation stops the TrainJob; a second engine on the same database resumes a dispatch the first left mid-flight
// without calling Start again; two engines on one database share the jobs and run each activity once.
import { PGlite } from "@electric-sql/pglite"
import { Simulator } from "@dispatch/sim"
import { SimCluster } from "@dispatch/sim/cluster"
import { Cause, Effect, Exit, Layer, Option, Scope } from "effect"
import type { SqlClient } from "effect/sql"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { torchRuntime } from "../ClusterWorld.ts"
import { testPostgres, type TestPostgres } from "../TestPostgres.ts"
import {
  countedPglite,
  engineLayer,
  finish,
  jobDispatchLayer,
  JobDispatchWorkflow,
  namespace,
  postgresClient,
  trainJobName,
  until,
  type Executions,
  type Gates
} from "./DispatchWorkflow.ts"

type Engine = Layer.Success<ReturnType<typeof engineLayer>>

/** One engine instance: its layer built in a scope of its own, so a test can close it (a replica going away). */
interface Running {
  readonly run: <A, E>(effect: Effect.Effect<A, E, Engine>) => Promise<A>
  readonly close: () => Promise<void>
}

const startEngine = async (runner: string, client: Layer.Layer<SqlClient.SqlClient, unknown>, sim: Simulator, executions: Executions, gates?: Gates): Promise<Running> => {
  const scope = Effect.runSync(Scope.make())
  const layer = jobDispatchLayer(executions, gates).pipe(
    Layer.provideMerge(engineLayer(runner)),
    Layer.provide(client),
    Layer.provide(SimCluster(sim, { callMs: 5000 }))
  )
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  return {
    run: (effect) => Effect.runPromise(Effect.provideContext(effect, context)),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

const simulator = () => new Simulator({ seed: 3, objects: [torchRuntime()] })

const trainJob = (sim: Simulator, job: number): Record<string, any> | undefined => {
  const outcome = sim.handle({ verb: "get", group: "trainer.kubeflow.org", version: "v1alpha1", resource: "trainjobs", namespace, name: trainJobName(job) })
  return outcome.kind === "answered" && outcome.response.code === 200 ? (outcome.response.body as Record<string, any>) : undefined
}

const count = (executions: Executions, key: string) => executions.get(key) ?? 0

const resultOf = (running: Running, job: number) =>
  running.run(Effect.flatMap(JobDispatchWorkflow.executionId({ job }), (id) => JobDispatchWorkflow.poll(id)))

const complete = (result: Option.Option<{ readonly _tag: string }>) => Option.isSome(result) && result.value._tag === "Complete"

const backends = [
  // PGlite is one process's embedded database: replicas cannot share it, so only PostgreSQL gets the two-engine test.
  { name: "PGlite", replicas: false, open: async () => ({ client: (db: PGlite) => countedPglite(db, { statements: 0 }), release: async () => undefined }) },
  {
    name: "PostgreSQL",
    replicas: true,
    open: async () => {
      const postgres: TestPostgres = await testPostgres()
      return { client: () => postgresClient(postgres.url), release: () => postgres.release() }
    }
  }
] as const

describe.each(backends)("a job's dispatch as a workflow on effect/cluster's SQL engine, on $name", ({ name, replicas, open }) => {
  let opened: Awaited<ReturnType<(typeof backends)[number]["open"]>>
  let pglite: PGlite
  // One database for the block (PGlite: shared by the engines of a test, as replicas share a server); the tests use
  // distinct jobs, so each sees only its own executions.
  const client = () => opened.client(pglite)
  beforeAll(async () => {
    opened = await open()
    pglite = new PGlite()
  })
  afterAll(async () => {
    await pglite.close()
    await opened.release()
  })

  test("runs Start, own and read-back once each, waits for the job's end, then stops the TrainJob", async () => {
    const sim = simulator()
    const executions: Executions = new Map()
    const engine = await startEngine(`${name}-one`, client(), sim, executions)
    try {
      await engine.run(JobDispatchWorkflow.execute({ job: 1 }, { discard: true }))
      await until("the read-back", () => count(executions, "ReadBack 1") === 1)
      const executionId = await engine.run(JobDispatchWorkflow.executionId({ job: 1 }))
      expect(trainJob(sim, 1)?.metadata.annotations["dispatch/owner"]).toBe(executionId)
      // Waiting for the job's end, the workflow has no result yet, or is suspended: it is not complete.
      expect(complete(await resultOf(engine, 1))).toBe(false)
      await engine.run(finish(1, "Complete"))
      await until("the result", async () => complete(await resultOf(engine, 1)))
      const result = Option.getOrThrow(await resultOf(engine, 1))
      expect(result._tag === "Complete" && Exit.isSuccess(result.exit) ? result.exit.value : undefined).toBe("Complete")
      expect(trainJob(sim, 1)).toBeUndefined()
      expect([...executions].sort()).toEqual([["Own 1", 1], ["ReadBack 1", 1], ["Start 1", 1], ["Stop 1", 1]])
    } finally {
      await engine.close()
    }
  })

  test("a cancel interrupts the workflow, and Start's compensation stops the TrainJob", async () => {
    const sim = simulator()
    const executions: Executions = new Map()
    const engine = await startEngine(`${name}-cancel`, client(), sim, executions)
    try {
      const executionId = await engine.run(JobDispatchWorkflow.execute({ job: 2 }, { discard: true }))
      await until("the read-back", () => count(executions, "ReadBack 2") === 1)
      expect(trainJob(sim, 2)).toBeDefined()
      await engine.run(JobDispatchWorkflow.interrupt(executionId))
      await until("the result", async () => complete(await resultOf(engine, 2)))
      const result = Option.getOrThrow(await resultOf(engine, 2))
      expect(result._tag === "Complete" && Exit.isFailure(result.exit) && Cause.hasInterrupts(result.exit.cause)).toBe(true)
      expect(trainJob(sim, 2)).toBeUndefined()
      expect(count(executions, "Stop 2")).toBe(1)
    } finally {
      await engine.close()
    }
  })

  test("a second engine on the same database resumes a dispatch the first left after Start, without starting again", async () => {
    const sim = simulator()
    const executions: Executions = new Map()
    const first = await startEngine(`${name}-first`, client(), sim, executions, { afterStart: () => Effect.never })
    await first.run(JobDispatchWorkflow.execute({ job: 3 }, { discard: true }))
    await until("Start", () => count(executions, "Start 3") === 1)
    await first.close()
    expect(count(executions, "Own 3")).toBe(0)
    const second = await startEngine(`${name}-second`, client(), sim, executions)
    try {
      await until("the read-back on the second engine", () => count(executions, "ReadBack 3") === 1)
      await second.run(finish(3, "Failed"))
      await until("the result", async () => complete(await resultOf(second, 3)))
      expect(count(executions, "Start 3")).toBe(1)
      expect(count(executions, "Own 3")).toBe(1)
      expect(trainJob(sim, 3)).toBeUndefined()
    } finally {
      await second.close()
    }
  })

  if (replicas) test("two engines on one database share the jobs and run each job's activities once", async () => {
    const sim = simulator()
    const executionsA: Executions = new Map()
    const executionsB: Executions = new Map()
    const a = await startEngine(`${name}-a`, client(), sim, executionsA)
    const b = await startEngine(`${name}-b`, client(), sim, executionsB)
    const jobs = Array.from({ length: 12 }, (_, i) => 100 + i)
    try {
      await Promise.all(jobs.map((job) => (job % 2 === 0 ? a : b).run(JobDispatchWorkflow.execute({ job }, { discard: true }))))
      const both = (key: string) => count(executionsA, key) + count(executionsB, key)
      await until("every read-back", () => jobs.every((job) => both(`ReadBack ${job}`) === 1))
      await Promise.all(jobs.map((job) => (job % 3 === 0 ? a : b).run(finish(job, "Complete"))))
      await until("every Stop", () => jobs.every((job) => both(`Stop ${job}`) === 1))
      for (const job of jobs) {
        for (const step of ["Start", "Own", "ReadBack", "Stop"]) expect(both(`${step} ${job}`), `${step} ${job}`).toBe(1)
        expect(trainJob(sim, job)).toBeUndefined()
      }
      // Both engines held shards, so both ran some of the jobs.
      expect(executionsA.size).toBeGreaterThan(0)
      expect(executionsB.size).toBeGreaterThan(0)
    } finally {
      await a.close()
      await b.close()
    }
  })
})

