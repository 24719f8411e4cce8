// What a job's dispatch costs the database: the service's lease path (the dispatcher's claim, Start, and the answer's
// writes) against the same dispatch as an effect/workflow workflow on effect/cluster's SQL engine (Start, own,
// read-back). The figures are printed for docs/architecture.md's verdict ("Why dispatch keeps leases, not
// effect/workflow"); the tests assert only what must hold whatever the machine's speed: every job was dispatched once.
// `WORKFLOW_COST_JOBS` sets the number of jobs (bench/workflow.mjs raises it); 16 by default.
import { PGlite } from "@electric-sql/pglite"
import { Simulator } from "@dispatch/sim"
import { SimCluster } from "@dispatch/sim/cluster"
import { Effect, Exit, Layer, Scope } from "effect"
import type { SqlClient } from "effect/sql"
import pg from "pg"
import { describe, expect, test } from "vitest"
import { dispatchPassEffect } from "../../src/dispatch/JobDispatch.ts"
import { torchRuntime } from "../ClusterWorld.ts"
import { simulator, stored, useDispatchWorld } from "../DispatchWorld.ts"
import { testPostgres } from "../TestPostgres.ts"
import { countedPglite, engineLayer, jobDispatchLayer, JobDispatchWorkflow, postgresClient, countStatement, until, type Counter, type Executions } from "./DispatchWorkflow.ts"

const jobs = Number(process.env["WORKFLOW_COST_JOBS"] ?? 16)

/** Counts every call of the named methods on `prototype` (and so on every instance) until the returned restore. */
const countCalls = (prototype: object, methods: ReadonlyArray<string>, counter: Counter): (() => void) => {
  const originals = methods.map((method) => {
    let owner: any = prototype
    while (owner !== null && !Object.prototype.hasOwnProperty.call(owner, method)) owner = Object.getPrototypeOf(owner)
    const original = owner[method]
    owner[method] = function (this: unknown, ...args: Array<unknown>) {
      countStatement(counter, args[0])
      return original.apply(this, args)
    }
    return () => void (owner[method] = original)
  })
  return () => originals.forEach((restore) => restore())
}

const print = (line: string) => console.log(`workflow cost: ${line}`)

const perJob = (statements: number) => (statements / jobs).toFixed(1)

/** Waits until at most two statements (the engine's background reads) were sent in a second. */
const settled = async (counter: Counter): Promise<void> => {
  for (;;) {
    const from = counter.statements
    await new Promise((resolve) => setTimeout(resolve, 1000))
    if (counter.statements - from <= 2) return
  }
}

describe("the lease path", () => {
  const w = useDispatchWorld("WorkflowCost")
  test(`dispatches ${jobs} jobs in one pass; its statements per job are printed`, async () => {
    const sim = simulator()
    for (let i = 0; i < jobs; i++) await w.submit()
    const counter: Counter = { statements: 0, texts: new Map() }
    const restore = countCalls(PGlite.prototype, ["query", "exec"], counter)
    const started = performance.now()
    const cpu = process.cpuUsage()
    try {
      // Random entropy, so each job's TrainJob has a name of its own.
      const entropy = (n: number) => Array.from({ length: n }, () => Math.floor(Math.random() * 256))
      expect(await w.db().run(dispatchPassEffect(w.context(w.simCluster(sim), { entropy }), jobs))).toEqual({ claimed: jobs, problems: [] })
    } finally {
      restore()
    }
    const used = process.cpuUsage(cpu)
    print(`lease path, PGlite, ${jobs} jobs in one pass: ${perJob(counter.statements)} statements per job, ${((performance.now() - started) / jobs).toFixed(1)} ms wall and ${((used.user + used.system) / 1000 / jobs).toFixed(1)} ms CPU per job`)
    for (const [text, times] of [...(counter.texts ?? [])].sort((a, b) => b[1] - a[1])) print(`  ${times} × ${text}`)
    expect(stored(sim, "trainjobs")).toHaveLength(jobs)
  }, 600_000)
})

/** Builds an engine on `client` and dispatches job `first` through it; prints how long until that job was read back
 * (from the start of the build) and how many statements that took. */
const engineWithFirstJob = async (label: string, client: Layer.Layer<SqlClient.SqlClient, unknown>, counter: Counter, sim: Simulator, executions: Executions, first: number) => {
  const scope = Effect.runSync(Scope.make())
  const building = counter.statements
  const built = performance.now()
  // effect/cluster's own pacing: messages for the engine's own shards are delivered at once; the storage poll (other
  // runners' messages) stays at its default of 10 s, and the read of the runners alive at its 3 s.
  const layer = jobDispatchLayer(executions).pipe(Layer.provideMerge(engineLayer("cost", 10_000, 3000)), Layer.provide(client), Layer.provide(SimCluster(sim, { callMs: 5000 })))
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  await Effect.runPromise(Effect.provideContext(JobDispatchWorkflow.execute({ job: first }, { discard: true }), context))
  await until("the first job's read-back", () => executions.get(`ReadBack ${first}`) === 1, 600_000)
  print(`${label}: engine built and its first job read back in ${(performance.now() - built).toFixed(0)} ms, ${counter.statements - building} statements`)
  return {
    context,
    close: async () => {
      const closing = performance.now()
      await Effect.runPromise(Scope.close(scope, Exit.void))
      print(`${label}: engine closed in ${(performance.now() - closing).toFixed(0)} ms`)
    }
  }
}

/** Builds an engine on a new database and again on the same one, dispatches `jobs` jobs through the second 16 at a
 * time until each is read back, and prints the cost. */
const dispatchThroughEngine = async (label: string, client: Layer.Layer<SqlClient.SqlClient, unknown>, counter: Counter) => {
  const sim = new Simulator({ seed: 4, objects: [torchRuntime()] })
  const executions: Executions = new Map()
  await (await engineWithFirstJob(`${label}, new database`, client, counter, sim, executions, 1_000_001)).close()
  const { context, close } = await engineWithFirstJob(`${label}, existing database`, client, counter, sim, executions, 1_000_000)
  try {
    const before = counter.statements
    const started = performance.now()
    const cpu = process.cpuUsage()
    const ids = Array.from({ length: jobs }, (_, i) => i + 1)
    await Effect.runPromise(Effect.forEach(ids, (job) => Effect.provideContext(JobDispatchWorkflow.execute({ job }, { discard: true }), context), { concurrency: 16 }))
    await until("every read-back", () => ids.every((job) => executions.get(`ReadBack ${job}`) === 1), 600_000)
    const used = process.cpuUsage(cpu)
    const wall = performance.now() - started
    const readBack = counter.statements
    print(`${label}, ${jobs} jobs 16 at a time: ${perJob(readBack - before)} statements per job until read back, ${(wall / jobs).toFixed(1)} ms wall and ${((used.user + used.system) / 1000 / jobs).toFixed(1)} ms CPU per job`)
    // After the read-back the engine still records each workflow's suspension (waiting for the job's end): the
    // statements until the engine is quiet (at most two statements in a second) are the rest of the job's dispatch.
    counter.texts = new Map()
    await settled(counter)
    print(`${label}: ${perJob(counter.statements - readBack)} more per job until the engine is quiet, the most sent:`)
    for (const [text, times] of [...counter.texts].sort((a, b) => b[1] - a[1]).slice(0, 6)) print(`  ${times} × ${text}`)
    const idle = counter.statements
    counter.texts = new Map()
    await new Promise((resolve) => setTimeout(resolve, 10_000))
    print(`${label}: ${counter.statements - idle} statements in 10 s with every job waiting for its end and nothing to do:`)
    for (const [text, times] of [...counter.texts].sort((a, b) => b[1] - a[1]).slice(0, 4)) print(`  ${times} × ${text}`)
    delete counter.texts
    for (const job of ids) for (const step of ["Start", "Own", "ReadBack"]) expect(executions.get(`${step} ${job}`), `${step} ${job}`).toBe(1)
    expect(stored(sim, "trainjobs")).toHaveLength(jobs + 2)
  } finally {
    await close()
  }
}

describe("the workflow path", () => {
  test(`dispatches ${jobs} jobs on PGlite; its statements per job are printed`, async () => {
    const counter: Counter = { statements: 0 }
    const db = new PGlite()
    try {
      await dispatchThroughEngine("workflow, PGlite", countedPglite(db, counter), counter)
    } finally {
      await db.close()
    }
  }, 600_000)

  test(`dispatches ${jobs} jobs on PostgreSQL; its statements per job are printed`, async () => {
    const postgres = await testPostgres()
    const counter: Counter = { statements: 0 }
    const restore = countCalls(pg.Client.prototype, ["query"], counter)
    try {
      await dispatchThroughEngine("workflow, PostgreSQL", postgresClient(postgres.url), counter)
    } finally {
      restore()
      await postgres.release()
    }
  }, 600_000)
})
