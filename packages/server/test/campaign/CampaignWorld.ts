// The campaign's world: one simulator behind its HTTP face, one database, and the job service running on them in
// process through the real client-node adapter (KubeCluster), killed and restarted as a schedule says. One world
// serves every schedule of a run: each schedule's jobs are its own, and what they left is cleared after its check.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { KubeCluster, type Cluster, type ClusterError } from "@dispatch/effects"
import { kubeconfigFor, Simulator, startSimServer, type KubeObject, type SimServer } from "@dispatch/sim"
import { Layer } from "effect"
import type { JobServer } from "../../src/index.ts"
import { migrateTest, openPglite, openPostgres, type TestDatabase as Database } from "../TestDatabase.ts"
import { namespace, probeNamePrefix, registerSimWorld, simKueue, simQueueBody, torchRuntime } from "../ClusterWorld.ts"
import { client, jobBody, started, tokens, type Client, type World } from "../Fixtures.ts"
import { testPostgres, type TestPostgres } from "../TestPostgres.ts"
import { campaignClock, type CampaignClock } from "./CampaignClock.ts"
import { campaignDatabase } from "./CampaignSize.ts"
import { FaultInjection } from "./FaultInjection.ts"
import { violations, type JobRecord, type Observation, type StoredObject, type StoredTrainJob, type Violation } from "./Invariants.ts"
import { mortalCluster, mortalDatabase } from "./Mortal.ts"
import { pass as passOf, proven } from "../TestDispatcher.ts"
import type { Dispatcher } from "../../src/dispatch/Dispatcher.ts"

const provenAll = async (dispatcher: Dispatcher | undefined) => (dispatcher === undefined ? undefined : proven(dispatcher))
import type { Action, QueueKind, Schedule, Trigger } from "./Schedule.ts"

/** What one schedule came to. */
export interface ScheduleResult {
  readonly observation: Observation
  readonly violations: ReadonlyArray<Violation>
  /** Real ms the schedule took, settling and checking included. */
  readonly costMs: number
  /** Settle rounds it took until nothing changed. */
  readonly rounds: number
  /** Real ms of its parts: the schedule's steps (faults, actions, kills), settling, and the check and clearing. */
  readonly phases: { readonly steps: number; readonly settle: number; readonly check: number }
}

/** What a sabotage may break once a schedule has settled, before its check: the store, the database, the jobs. */
export interface Sabotage {
  readonly sim: Simulator
  readonly db: Database
  readonly jobs: ReadonlyArray<number>
}

/** A world the schedules of one run share. */
export interface Campaign {
  readonly database: "pglite" | "postgres"
  /** Runs one schedule; `sabotage`, for the harness's own tests, breaks something before the check. */
  readonly run: (schedule: Schedule, sabotage?: (world: Sabotage) => Promise<void>) => Promise<ScheduleResult>
  readonly close: () => Promise<void>
}

/** The client's call timeout, in real ms. An answer the schedule drops or loses is cut (a reset), so no fault
 * waits for it: it is long enough that no answered call misses it on a busy machine. */
export const campaignCallMs = 5000
/** The settle loop's most rounds; each skips the service clock past every backoff and lease. */
const maxRounds = 20
/** Service-clock ms each settle round skips: past the longest backoff (2 s), a lease (60 s) and a re-proof (60 s). */
const roundSkipMs = 120_000
/** Simulator ms each settle round skips: past a run (3 s) and Kueue's admission. */
const roundSimMs = 10_000
/** Once settled, the clock skips this far (past any grace or retention period) and settles again. */
const graceSkipMs = 25 * 3600_000

interface Instance {
  readonly server: JobServer
  readonly alice: Client
  alive: boolean
}

type Row = {
  id: number
  status: string
  deleted: boolean
  state: string
  nextAt: string | number | null
  /** Until when an unanswered create may land. */
  landsBy: string | number | null
  attempts: number
  reason: string | null
  lastError: unknown
  key: string | null
}

// The only queries of the service's tables: when the job's stored shape changes, this is what follows it.
const readRows = (db: Database, ids: ReadonlyArray<number>) =>
  db.query<Row>(
    `select id, status, deleted, dispatch_state as state, next_attempt_at as "nextAt", lands_by as "landsBy", attempts,
       dispatch_reason as reason, last_error as "lastError", start_request->>'job' as key from jobs where id = any($1::int[]) order by id`,
    [[...ids]]
  )
const readHistory = (db: Database, ids: ReadonlyArray<number>) =>
  db.query<{ job: number; status: string; reason: string | null }>(`select job, status, reason from job_status_history where job = any($1::int[]) order by id`, [[...ids]])
const readGates = (db: Database) => db.query<{ queue: number; state: string }>(`select queue, state from queue_gates order by queue`)
// A schedule's jobs are taken out of every later schedule's way: no dispatcher claims, follows or stops them again.
const retire = (db: Database, ids: ReadonlyArray<number>) =>
  db.query(`update jobs set deleted = true, dispatch_state = 'done', claimed_by = null, claim_until = null where id = any($1::int[])`, [[...ids]])

const progressOf = (row: Row): JobRecord["progress"] => {
  if (row.state === "done" || row.state === "deleted") return { kind: "terminal" }
  // A deleted job never claimed has nothing of it anywhere: no dispatcher takes it again.
  if (row.state === "pending" && row.deleted) return { kind: "terminal" }
  // Waiting for its next attempt, its next stop, or the bound of an unanswered create.
  if (row.state === "pending" || row.state === "stopping") return { kind: "retrying", at: Number(row.nextAt ?? 0) }
  if (row.state === "unknown") return { kind: "retrying", at: Number(row.landsBy ?? 0) }
  return { kind: "active", state: row.state }
}

const stored = (object: KubeObject): StoredObject => {
  const metadata = object.metadata ?? {}
  return {
    name: String(metadata["name"] ?? ""),
    uid: String(metadata["uid"] ?? ""),
    labelValues: Object.values((metadata["labels"] as Record<string, string> | undefined) ?? {}),
    owners: ((metadata["ownerReferences"] as Array<{ kind: string; name: string; uid: string }> | undefined) ?? []).map(({ kind, name, uid }) => ({ kind, name, uid }))
  }
}

const ours = (object: KubeObject) => {
  const name = String(object.metadata?.["name"] ?? "")
  return name !== torchRuntime().metadata?.["name"] && !name.startsWith(probeNamePrefix)
}

/** Opens a campaign world on PGlite, or on PostgreSQL (DATABASE_URL's server, or one started for it) when
 * CAMPAIGN_DATABASE is `postgres`, as the stress run sets it. */
export const openCampaign = async (options: { readonly callMs?: number } = {}): Promise<Campaign> => {
  const sim = new Simulator({ seed: 3, objects: [torchRuntime()], controllers: { trainer: { runTimeMs: 3000 }, kueue: simKueue } })
  const clock: CampaignClock = campaignClock(() => sim.now())
  // Moves the simulator (and with it the service) forward now, not at the next tick.
  const advance = (ms: number) => {
    clock.skipSim(ms)
    sim.advanceTo(sim.now() + ms)
  }
  let current: Instance | undefined
  let restarting: Promise<Instance> | undefined
  const pending: Array<Promise<unknown>> = []
  const graveyard: Array<Promise<void>> = []
  let perform: (action: Action) => Promise<void> = async () => undefined
  const fire = (then: Trigger["then"]) => {
    if (then.kind === "kill") kill()
    else pending.push(perform(then.action))
  }
  const injection = new FaultInjection(sim, namespace, fire)
  const server: SimServer = await startSimServer({
    simulator: { handle: (request) => injection.handle(request), watch: sim.watch.bind(sim), now: () => sim.now(), advanceTo: (ms) => sim.advanceTo(ms) },
    tickMs: 20,
    realTime: clock.simRealTime
  })
  const dir = mkdtempSync(join(tmpdir(), "dispatch-campaign-"))
  const kubeconfigPath = join(dir, "kubeconfig")
  writeFileSync(kubeconfigPath, kubeconfigFor(server))
  const kube = KubeCluster({ kubeconfigPath, callMs: options.callMs ?? campaignCallMs }) as Layer.Layer<Cluster, ClusterError>

  const postgres: TestPostgres | undefined = campaignDatabase() === "postgres" ? await testPostgres() : undefined
  const db = postgres === undefined ? await openPglite() : await openPostgres(postgres.url)
  await migrateTest(db)

  const startInstance = async (): Promise<Instance> => {
    const life = { alive: true }
    const alive = () => life.alive
    const cluster = Layer.merge(mortalCluster(kube, alive), clock.effectClock) as unknown as Layer.Layer<Cluster, ClusterError>
    const jobServer = await started({
      clock: clock.now,
      database: mortalDatabase(db, alive),
      dispatch: { cluster, autorun: false, syncMs: 100, leaseMs: 60_000, reproveMs: 60_000, backoff: { baseMs: 200, maxMs: 2000 } }
    })
    const instance: Instance = {
      server: jobServer,
      alice: client(jobServer.url, tokens.alice),
      get alive() {
        return life.alive
      },
      set alive(value: boolean) {
        life.alive = value
      }
    }
    return instance
  }
  // SIGKILL: the process stops where it is; its resources are reclaimed in the background, as the OS would.
  const kill = () => {
    const dead = current
    if (dead === undefined || !dead.alive) return
    dead.alive = false
    graveyard.push(dead.server.close().catch(() => undefined))
    restarting = startInstance().then((next) => (current = next))
  }
  const live = async (): Promise<Instance> => {
    while (restarting !== undefined) {
      const r = restarting
      await r
      if (restarting === r) restarting = undefined
    }
    if (current === undefined) throw new Error("no service is running")
    return current
  }
  const settlePending = async () => {
    while (pending.length > 0) await Promise.all(pending.splice(0))
    await live()
  }
  const pass = async () => {
    const instance = await live()
    const dispatcher = instance.server.dispatcher
    if (dispatcher !== undefined) await passOf(dispatcher).catch(() => undefined)
  }

  current = await startInstance()
  const registrar = current.alice
  const worlds: Record<QueueKind, World> = {
    plain: await registerSimWorld(registrar, "campaign-plain", simQueueBody("q-campaign-plain", "plain")),
    kueue: await registerSimWorld(registrar, "campaign-kueue", simQueueBody("q-campaign-kueue", "kueue"))
  }
  // Both queues are proven open before each schedule (a schedule may have sent one back to its Factory).
  const gatesOpen = async () => {
    for (let round = 0; ; round++) {
      const instance = await live()
      const states = await Promise.all(Object.values(worlds).map(async (w) => (await instance.alice("GET", `/queues/${w.queue}`)).body?.gate?.state))
      if (states.every((s) => s === "open")) return
      if (round > 50) throw new Error(`the campaign's queues are not open: ${states.join(", ")}`)
      clock.skip(roundSkipMs)
      await pass()
      await provenAll(instance.server.dispatcher)
    }
  }

  const run = async (schedule: Schedule, sabotage?: (world: Sabotage) => Promise<void>): Promise<ScheduleResult> => {
    const began = performance.now()
    await gatesOpen()
    const jobs: Array<number> = []
    const cancelled = new Set<number>()
    const answers: Array<{ request: string; status: number; lost: boolean }> = []
    const call = async (method: string, path: string, body?: unknown) => {
      const instance = await live()
      try {
        const answer = await instance.alice(method, path, body)
        answers.push({ request: `${method} ${path}`, status: answer.status, lost: !instance.alive })
        return answer
      } catch {
        answers.push({ request: `${method} ${path}`, status: 0, lost: true })
        return { status: 0, body: undefined }
      }
    }
    const create = async (queue: QueueKind) => {
      const w = worlds[queue]
      const answer = await call("POST", `/experiments/${w.experiment}/jobs`, jobBody(w.entrypoint, w.queue, { timeout: "9999h" }))
      if (answer.status === 200) jobs.push(answer.body.id)
    }
    perform = async (action) => {
      const id = jobs[action.job % Math.max(1, jobs.length)]
      if (id === undefined) return
      if (action.kind === "cancel") {
        if ((await call("POST", `/jobs/${id}/cancel`)).status === 200) cancelled.add(id)
      } else if (action.kind === "delete") await call("DELETE", `/jobs/${id}`)
      else {
        const answer = await call("POST", `/jobs/${id}/rerun`)
        if (answer.status === 200) jobs.push(answer.body.id)
      }
    }
    injection.arm(schedule.faults, schedule.triggers)
    for (const step of schedule.steps) {
      await settlePending()
      switch (step.kind) {
        case "create":
          await create(step.queue)
          break
        case "pass":
          await pass()
          break
        case "tick":
          advance(step.ms)
          break
        case "act":
          await perform(step.action)
          break
        case "restart":
          kill()
          break
      }
    }
    await settlePending()
    injection.disarm()
    const stepsDone = performance.now()

    // Settling: the faults have stopped; each round skips both clocks past every wait and runs a pass, until
    // neither the service's record nor the simulator's store changes.
    const fingerprint = async () => {
      const rows = await readRows(db, jobs)
      // A queue's gate too: a probe that opens it during a round changes what the next pass claims.
      const gates = await readGates(db)
      const objects = [...sim.system.list("trainjobs", namespace), ...sim.system.list("trainingruntimes", namespace)].map((o) => `${o.metadata?.["name"]}@${o.metadata?.["resourceVersion"]}`)
      return JSON.stringify([rows, gates, objects])
    }
    let rounds = 0
    // Settled once a round changes nothing: compared with what was there before it, the first round's included.
    const settle = async (before: string): Promise<string> => {
      let last = before
      let same = 0
      for (let round = 0; round < maxRounds && same < 1; round++, rounds++) {
        clock.skip(roundSkipMs)
        advance(roundSimMs)
        await pass()
        await settlePending()
        // A probe runs beside the passes: a queue sent back to its Factory is open again only once it ends.
        await provenAll((await live()).server.dispatcher)
        const now = await fingerprint()
        same = now === last ? same + 1 : 0
        last = now
      }
      return last
    }
    const settled = await settle(await fingerprint())
    clock.skip(graceSkipMs)
    await settle(settled)
    const settleDone = performance.now()

    try {
      await sabotage?.({ sim, db, jobs })
      const observation = await observe(jobs, cancelled, answers)
      const checked = performance.now()
      const phases = { steps: stepsDone - began, settle: settleDone - stepsDone, check: checked - settleDone }
      return { observation, violations: violations(observation), costMs: checked - began, rounds, phases }
    } finally {
      await clear(jobs)
    }
  }

  // The schedule's jobs retire and its objects go, so the next schedule starts on an empty namespace.
  const clear = async (jobs: ReadonlyArray<number>) => {
    await retire(db, jobs)
    for (const resource of ["trainjobs", "trainingruntimes"]) {
      for (const o of sim.system.list(resource, namespace)) if (ours(o)) sim.system.delete(resource, namespace, String(o.metadata?.["name"]))
    }
    advance(2000)
  }

  const observe = async (ids: ReadonlyArray<number>, cancelled: ReadonlySet<number>, answers: Observation["answers"]): Promise<Observation> => {
    const rows = await readRows(db, ids)
    const history = await readHistory(db, ids)
    const jobs = rows.map((row): JobRecord => {
      const own = history.filter((h) => h.job === row.id).map((h) => (h.reason === null ? { status: h.status } : { status: h.status, reason: h.reason }))
      const last = own.at(-1)?.reason ?? ""
      return {
        id: row.id,
        key: row.key,
        status: row.status,
        progress: progressOf(row),
        deleted: row.deleted,
        cancelled: cancelled.has(row.id) || own.some((h) => h.reason?.startsWith("cancelled") === true),
        history: own,
        failure: [row.reason ?? "", row.lastError === null ? "" : JSON.stringify(row.lastError), last].join(" | ")
      }
    })
    const trainJobs = sim.system
      .list("trainjobs", namespace)
      .filter(ours)
      .map((o): StoredTrainJob => ({ ...stored(o), suspended: (o["spec"] as { suspend?: boolean } | undefined)?.suspend === true }))
    const copies = sim.system.list("trainingruntimes", namespace).filter(ours).map(stored)
    const landedTrainJobs = injection.calls
      .filter((c) => c.kind === "create-trainjob" && c.applied)
      .map((c) => {
        const metadata = (c.request.body as { metadata?: { name?: string; labels?: Record<string, string> } } | undefined)?.metadata
        return { name: metadata?.name ?? "", labelValues: Object.values(metadata?.labels ?? {}) }
      })
    const readBacks = injection.calls
      .filter((c) => c.kind === "read-back" && c.outcome.kind === "answered" && c.outcome.response.code === 200)
      .map((c) => c.request.name ?? "")
    return { now: clock.now(), jobs, trainJobs, copies, landedTrainJobs, readBacks, answers }
  }

  return {
    database: db.kind,
    run,
    close: async () => {
      await settlePending().catch(() => undefined)
      await current?.server.close()
      await Promise.all(graveyard)
      await db.close()
      await postgres?.release()
      await server.close()
      await sim.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }
}
