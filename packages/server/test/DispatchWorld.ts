// The dispatcher's passes in process, without a service: a migrated PGlite database with one registered world (queue,
// entrypoint, experiment) of alice's group, jobs submitted through the API in process, and a dispatch context whose
// cluster is either the simulator in process (SimCluster, with the database's memory of unanswered creates) or a
// script of answers. Tests read what the database and the simulator store.
import { SimCluster } from "@dispatch/sim/cluster"
import { Simulator, type FaultRule, type KubeObject } from "@dispatch/sim"
import { defaultRetryPolicy } from "@dispatch/jobs"
import { Effect, Layer } from "effect"
import pg from "pg"
import { afterAll, beforeAll, beforeEach } from "vitest"
import { handleApiRequest } from "../src/http/ApiServer.ts"
import { makeClusterRuntime, type ClusterRun, type ClusterRuntime } from "../src/dispatch/ClusterRuntime.ts"
import { storeGate, type DispatchContext } from "../src/dispatch/DispatchContext.ts"
import type { JobControl } from "../src/dispatch/JobControl.ts"
import { migrateTest, openPglite, openPostgres, type TestDatabase as Database } from "./TestDatabase.ts"
import { openApi, routes } from "../src/Serve.ts"
import { unansweredCreates } from "../src/store/UnansweredCreates.ts"
import { namespace, registerSimWorld, torchRuntime } from "./ClusterWorld.ts"
import { inProcess, jobBody, tokenEntries, tokens, type World } from "./Fixtures.ts"

/** The service clock the tests start at; every test moves its own copy. */
export const startMs = Date.UTC(2026, 5, 1, 12)

/** A cluster runtime that answers each operation with the next of `answers` (the last one again when they run out)
 * and counts the operations it was asked to run. */
export const scriptedCluster = (answers: ReadonlyArray<ClusterRun<unknown>>): ClusterRuntime & { readonly runs: () => number } => {
  let runs = 0
  return {
    run: <A>() => Effect.sync(() => answers[Math.min(runs++, answers.length - 1)] as ClusterRun<A>),
    close: Effect.void,
    runs: () => runs
  }
}

/** A simulator holding the test runtime, with a fault plan. */
export const simulator = (faults: ReadonlyArray<FaultRule> = [], objects: ReadonlyArray<KubeObject> = []) =>
  new Simulator({ seed: 5, faults, objects: [torchRuntime(), ...objects], controllers: { trainer: { runTimeMs: 60_000 } } })

/** The dispatch world of one test file: its database, alice's in-process client and registered world. */
export interface DispatchWorld {
  readonly db: () => Database
  readonly world: () => World
  /** Alice's in-process API (the service clock is `clock`); `control` is the dispatcher's job control it uses. */
  readonly api: (method: string, path: string, body?: unknown) => Promise<{ readonly status: number; readonly body: any }>
  /** The service clock, epoch ms; tests move it. */
  readonly clock: { now: number }
  /** The job control the API's requests see, when a test sets one. */
  readonly control: { current: JobControl | undefined }
  /** Submits a job through the API; its id. */
  readonly submit: () => Promise<number>
  /** A dispatch context over this cluster (its Effects run on the database: `db().run`). */
  readonly context: (cluster: ClusterRuntime, overrides?: Partial<DispatchContext>) => DispatchContext
  /** A cluster runtime over the simulator in process, remembering unanswered creates in the database. */
  readonly simCluster: (sim: Simulator, callMs?: number) => ClusterRuntime
  /** The stored row of a job, the columns the dispatcher writes. */
  readonly row: (id: number) => Promise<Record<string, any>>
  /** A job's status history: status and reason, oldest first. */
  readonly history: (id: number) => Promise<ReadonlyArray<{ readonly status: string; readonly reason: string | null }>>
}

// Under Stryker every mutant reruns a file's tests in a fresh worker, and opening PGlite (compiling its WebAssembly)
// takes seconds, tens of seconds on a busy machine: most of a mutation run. With DISPATCH_MUTATION_POSTGRES (a
// PostgreSQL server's admin URL, e.g. from test/postgres/start.sh) each file of each Stryker worker keeps a database
// of its own there, migrated and registered once and reused by every later mutant (each test still starts without
// jobs). Without it, the file opens PGlite as usual.
const mutationPostgres = process.env["DISPATCH_MUTATION_POSTGRES"]

const keptDatabase = async (admin: string, name: string): Promise<{ readonly db: Database; readonly fresh: boolean }> => {
  const database = `dispatch_mutation_${name.toLowerCase()}_${process.env["STRYKER_MUTATOR_WORKER"] ?? "0"}`
  const client = new pg.Client({ connectionString: admin })
  await client.connect()
  const fresh = (await client.query(`select 1 from pg_database where datname = $1`, [database])).rowCount === 0
  if (fresh) await client.query(`create database ${database}`)
  await client.end()
  const url = new URL(admin)
  url.pathname = `/${database}`
  return { db: await openPostgres(url.toString()), fresh }
}

const worldNamed = async (db: Database): Promise<World | undefined> => {
  const [row] = await db.query<World>(
    `select q.id as queue, e.id as entrypoint, x.id as experiment from queues q, entrypoints e, experiments x
     where q.name = 'q-dispatch' and e.name = 'ep-dispatch' and x.name = 'ex-dispatch'`
  )
  return row
}

/** Opens the file's database (`name` names it) before its tests and registers one world on a queue whose gate is open. */
export const useDispatchWorld = (name: string): DispatchWorld => {
  let db: Database | undefined
  let world: World | undefined
  const clock = { now: startMs }
  const control: { current: JobControl | undefined } = { current: undefined }
  const database = () => {
    if (db === undefined) throw new Error("the database did not open")
    return db
  }
  const api = async (method: string, path: string, body?: unknown) => {
    const answer = await handleApiRequest(
      { routes, openApi, tokens: tokenEntries, db: database().client, now: () => new Date(clock.now).toISOString(), baseUrl: "http://test", control: () => control.current },
      { method, url: `/api/v1${path}`, authorization: `Bearer ${tokens.alice}`, body: body === undefined ? "" : JSON.stringify(body) }
    )
    return { status: answer.status, body: answer.body as any }
  }
  const alice = inProcess(api)
  const runtimes: Array<ClusterRuntime> = []
  beforeAll(async () => {
    const kept = mutationPostgres === undefined ? undefined : await keptDatabase(mutationPostgres, name)
    db = kept?.db ?? (await openPglite())
    if (kept === undefined || kept.fresh) await migrateTest(db)
    world = (kept === undefined ? undefined : await worldNamed(db)) ?? (await registerSimWorld(alice, "dispatch"))
  })
  // Each test starts without jobs, with the clock at its start and the queue's gate open.
  beforeEach(async () => {
    clock.now = startMs
    control.current = undefined
    const db = database()
    await db.query(`delete from job_status_history`)
    await db.query(`delete from jobs`)
    await db.query(`delete from unanswered_creates`)
    await db.run(storeGate(world?.queue ?? 0, { state: "open" }, new Date(startMs).toISOString(), startMs))
  })
  afterAll(async () => {
    for (const runtime of runtimes.splice(0)) await Effect.runPromise(runtime.close)
    await db?.close()
  })
  return {
    db: database,
    world: () => {
      if (world === undefined) throw new Error("the world was not registered")
      return world
    },
    api,
    clock,
    control,
    submit: async () => {
      const w = world
      if (w === undefined) throw new Error("the world was not registered")
      const answer = await api("POST", `/experiments/${w.experiment}/jobs`, jobBody(w.entrypoint, w.queue))
      if (answer.status !== 200) throw new Error(`job not created: ${JSON.stringify(answer.body)}`)
      return answer.body.id as number
    },
    context: (cluster, overrides = {}) => ({
      cluster,
      instance: "tester",
      clock: () => clock.now,
      now: () => new Date(clock.now).toISOString(),
      entropy: (n) => Array.from({ length: n }, () => 128),
      secret: "00112233",
      reportUrl: "http://service.test/api/v1",
      leaseMs: 60_000,
      policy: defaultRetryPolicy,
      ...overrides
    }),
    simCluster: (sim, callMs = 2000) => {
      const runtime = makeClusterRuntime(SimCluster(sim, { callMs }), "Warn", Layer.provide(unansweredCreates, database().layer))
      runtimes.push(runtime)
      return runtime
    },
    row: async (id) => {
      const [row] = await database().query<Record<string, any>>(
        `select status, dispatch_state, attempts, next_attempt_at, lands_by, first_attempt_at, faults, stop_ends, stop_tries, dispatch_reason,
           held_from, deleted, claimed_by, claim_until, trainjob, last_error, start_request, last_modified_on from jobs where id = $1`,
        [id]
      )
      if (row === undefined) throw new Error(`no job ${id}`)
      return row
    },
    history: async (id) => database().query(`select status, reason from job_status_history where job = $1 order by id`, [id])
  }
}

/** The objects of a kind the simulator stores in the test namespace, by name. */
export const stored = (sim: Simulator, resource: "trainjobs" | "trainingruntimes"): ReadonlyArray<string> => {
  const outcome = sim.handle({ verb: "list", group: "trainer.kubeflow.org", version: "v1alpha1", resource, namespace })
  if (outcome.kind !== "answered") throw new Error("the simulator did not answer its list")
  const items = (outcome.response.body as { items?: ReadonlyArray<KubeObject> }).items ?? []
  return items.map((o) => String((o as { metadata?: { name?: unknown } }).metadata?.name)).sort()
}

/** Runs an Effect to a promise (for effects' helpers in tests). */
export const run = <A>(effect: Effect.Effect<A>): Promise<A> => Effect.runPromise(effect)
