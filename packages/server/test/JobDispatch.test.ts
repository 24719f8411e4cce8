// The dispatcher's pass in process: it claims due jobs, runs the cluster calls the dispatch machine asks for, feeds
// their answers back and writes what the machine answers; checked on what the database and the simulator store.
import { ErrInvalid, ErrOutcomeUnknown, ErrReadOnly, ErrRejected, ErrUnreachable, type StartError } from "@dispatch/effects"
import { describe, expect, test } from "vitest"
import { Context, Effect } from "effect"
import { SqlClient } from "effect/sql"
import type { Database } from "../src/store/Database.ts"
import { readGate, type DispatchContext } from "../src/dispatch/DispatchContext.ts"
import { dispatchPassEffect, problemOf, recordedError } from "../src/dispatch/JobDispatch.ts"
import { reportToken, reportTokenKey, serviceUrlKey } from "../src/dispatch/ReportToken.ts"
import { scriptedCluster, simulator, startMs, stored, useDispatchWorld } from "./DispatchWorld.ts"
import { failWhen, withTap } from "./TestDatabase.ts"

const w = useDispatchWorld("JobDispatch")

/** One dispatch pass on the world's database, or on `database` when given. */
const dispatchPass = (context: DispatchContext, limit: number, database: Context.Context<Database> = w.db().context) =>
  Effect.runPromise(Effect.provideContext(dispatchPassEffect(context, limit), database))

const trainJobEnv = (sim: ReturnType<typeof simulator>, name: string): Record<string, string> => {
  const outcome = sim.handle({ verb: "get", group: "trainer.kubeflow.org", version: "v1alpha1", resource: "trainjobs", namespace: "ml-team", name })
  if (outcome.kind !== "answered") throw new Error("no answer")
  const env = (outcome.response.body as any).spec.trainer.env as ReadonlyArray<{ name: string; value: string }>
  return Object.fromEntries(env.map((e) => [e.name, e.value]))
}

const startOk = { kind: "ok", value: { namespace: "ml-team", name: "tj", uid: "u-1" } } as const
const found = (state: string, extra: Record<string, unknown> = {}) => ({ kind: "ok", value: { state, ref: { namespace: "ml-team", name: "tj", uid: "" }, ...extra } }) as const
const failing = (error: StartError) => ({ kind: "error", error }) as const

describe("a dispatch pass on the simulator", () => {
  test("starts and opens a due job: its TrainJob and runtime copy are stored, the job is opened with that TrainJob", async () => {
    const sim = simulator()
    const id = await w.submit()
    expect(await dispatchPass(w.context(w.simCluster(sim)), 4)).toEqual({ claimed: 1, problems: [] })
    const row = await w.row(id)
    const [name] = stored(sim, "trainjobs")
    expect(name).toBeDefined()
    expect(stored(sim, "trainingruntimes")).toEqual(["dioptra-torch", name].sort())
    expect(row).toMatchObject({ status: "queued", dispatch_state: "opened", attempts: 1, claimed_by: null, claim_until: null, last_error: null, dispatch_reason: null })
    expect(row["trainjob"]).toMatchObject({ namespace: "ml-team", name })
    expect(row["trainjob"].uid).toMatch(/./)
    // The StartRequest is kept with the service's URL and without the token, which is derived on every attempt.
    expect(row["start_request"].spec.env[serviceUrlKey]).toBe("http://service.test/api/v1")
    expect(row["start_request"].spec.env[reportTokenKey]).toBeUndefined()
    const env = trainJobEnv(sim, name ?? "")
    expect(env[reportTokenKey]).toBe(reportToken("00112233", id))
    expect(env[serviceUrlKey]).toBe("http://service.test/api/v1")
    expect((await w.history(id)).map((h) => h.status)).toEqual(["queued"])
  })

  test("takes at most `limit` jobs, oldest first", async () => {
    const sim = simulator()
    const first = await w.submit()
    const second = await w.submit()
    expect(await dispatchPass(w.context(w.simCluster(sim)), 1)).toEqual({ claimed: 1, problems: [] })
    expect((await w.row(first))["dispatch_state"]).toBe("opened")
    expect((await w.row(second))["dispatch_state"]).toBe("pending")
    expect(stored(sim, "trainjobs")).toHaveLength(1)
  })

  test("a later attempt starts the StartRequest the first claim kept, whenever and wherever it runs", async () => {
    const id = await w.submit()
    await dispatchPass(w.context(scriptedCluster([failing(new ErrUnreachable({ reasons: ["down"] }))])), 4)
    const after = await w.row(id)
    expect(after).toMatchObject({ dispatch_state: "pending", trainjob: null })
    expect(after["start_request"].job).toMatch(/^[0-9A-Z]{26}$/)
    w.clock.now = Number(after["next_attempt_at"]) + 60_000
    const sim = simulator()
    await dispatchPass(w.context(w.simCluster(sim), { instance: "another" }), 4)
    const again = await w.row(id)
    expect(again["start_request"]).toEqual(after["start_request"])
    expect(again["attempts"]).toBe(2)
    expect(stored(sim, "trainjobs")).toEqual([`dj-${String(after["start_request"].job).toLowerCase()}-s1`])
  })
})

describe("a dispatch pass's answers, with the cluster's answers given", () => {
  test("a refused Start fails the job, keeping the typed error and the reason in its history", async () => {
    const id = await w.submit()
    const cluster = scriptedCluster([failing(new ErrInvalid({ reasons: ["bad image"] }))])
    expect(await dispatchPass(w.context(cluster), 4)).toEqual({ claimed: 1, problems: [] })
    const row = await w.row(id)
    // Failed, and stopping: a refusal may come after something of the job landed.
    expect(row).toMatchObject({ status: "failed", dispatch_state: "stopping", claimed_by: null, last_error: { error: "ErrInvalid", reasons: ["bad image"] } })
    expect(row["trainjob"]).toBeNull()
    expect(await w.history(id)).toEqual([
      { status: "queued", reason: null },
      { status: "failed", reason: expect.stringContaining("ErrInvalid: bad image") }
    ])
    expect(row["last_modified_on"]).toBe(new Date(startMs).toISOString())
    expect(cluster.runs()).toBe(1)
  })

  test("a passing fault queues the job again at the machine's retry time, keeping the fault", async () => {
    const id = await w.submit()
    w.clock.now = startMs + 5000
    await dispatchPass(w.context(scriptedCluster([failing(new ErrUnreachable({ reasons: ["down"] }))])), 4)
    const row = await w.row(id)
    expect(row).toMatchObject({ status: "queued", dispatch_state: "pending", attempts: 1, claimed_by: null, faults: ["ErrUnreachable: down"], dispatch_reason: "ErrUnreachable: down" })
    expect(row["last_error"]).toEqual({ error: "ErrUnreachable", reasons: ["down"] })
    expect(Number(row["next_attempt_at"])).toBeGreaterThanOrEqual(startMs + 5000)
    expect(Number(row["first_attempt_at"])).toBe(startMs + 5000)
  })

  test("an unanswered create waits out the queue's call bound, then Find decides: found Running, the job is opened with it", async () => {
    const id = await w.submit()
    await dispatchPass(w.context(scriptedCluster([failing(new ErrOutcomeUnknown({ reasons: ["no answer"] }))])), 4)
    const row = await w.row(id)
    // The test queue's call bound is 5 s.
    expect(row).toMatchObject({ dispatch_state: "unknown", status: "queued", claimed_by: null, lands_by: startMs + 5000, next_attempt_at: startMs + 5000 })
    expect(await dispatchPass(w.context(scriptedCluster([startOk])), 4)).toEqual({ claimed: 0, problems: [] })
    w.clock.now = startMs + 5000
    const cluster = scriptedCluster([found("Running"), { kind: "ok", value: undefined }])
    await dispatchPass(w.context(cluster), 4)
    const later = await w.row(id)
    expect(later).toMatchObject({ dispatch_state: "opened", trainjob: { namespace: "ml-team", name: "tj" }, lands_by: null })
    expect(later["trainjob"].uid).toBeUndefined()
  })

  test("Find seeing nothing after the bound starts again; InFlight waits until the time it says", async () => {
    const id = await w.submit()
    await dispatchPass(w.context(scriptedCluster([failing(new ErrOutcomeUnknown({ reasons: ["no answer"] }))])), 4)
    w.clock.now = startMs + 5000
    await dispatchPass(w.context(scriptedCluster([{ kind: "ok", value: { state: "InFlight", untilMs: startMs + 9000 } }])), 4)
    expect(await w.row(id)).toMatchObject({ dispatch_state: "unknown", next_attempt_at: startMs + 9000, trainjob: null })
    w.clock.now = startMs + 9000
    const cluster = scriptedCluster([{ kind: "ok", value: { state: "Absent" } }, startOk, { kind: "ok", value: undefined }])
    await dispatchPass(w.context(cluster), 4)
    expect(cluster.runs()).toBe(3)
    expect(await w.row(id)).toMatchObject({ dispatch_state: "opened", trainjob: { namespace: "ml-team", name: "tj", uid: "u-1" } })
  })

  test("a failed Find is a fault of the attempt", async () => {
    const id = await w.submit()
    await dispatchPass(w.context(scriptedCluster([failing(new ErrOutcomeUnknown({ reasons: ["no answer"] }))])), 4)
    w.clock.now = startMs + 5000
    await dispatchPass(w.context(scriptedCluster([failing(new ErrUnreachable({ reasons: ["list failed"] }))])), 4)
    const row = await w.row(id)
    expect(row["faults"]).toContain("ErrUnreachable: list failed")
    expect(row["last_error"]).toEqual({ error: "ErrUnreachable", reasons: ["list failed"] })
  })

  test("an Open the cluster refused fails the job, unless Find sees it launched anyway", async () => {
    const refused = await w.submit()
    const rejected = failing(new ErrRejected({ reasons: ["patch refused"], cause: { kind: "Refused", reason: "Invalid", code: 422 } }))
    await dispatchPass(w.context(scriptedCluster([startOk, rejected, { kind: "ok", value: { state: "Stopped", ref: { namespace: "ml-team", name: "tj" } } }])), 4)
    expect(await w.row(refused)).toMatchObject({ status: "failed", last_error: { error: "ErrRejected", reasons: ["patch refused"] } })
    expect((await w.row(refused))["dispatch_state"]).not.toBe("opened")
    const launched = await w.submit()
    await dispatchPass(w.context(scriptedCluster([startOk, rejected, found("Succeeded")])), 4)
    expect(await w.row(launched)).toMatchObject({ dispatch_state: "opened", last_error: null })
  })

  test("an Open that failed otherwise is not checked with Find", async () => {
    const id = await w.submit()
    const cluster = scriptedCluster([startOk, failing(new ErrUnreachable({ reasons: ["patch timed out"] })), found("Running")])
    await dispatchPass(w.context(cluster), 4)
    expect(cluster.runs()).toBe(2)
    expect((await w.row(id))["dispatch_state"]).not.toBe("opened")
  })

  test("a read-only cluster marks the queue's gate read-only with the reason, and the job waits", async () => {
    const id = await w.submit()
    await dispatchPass(w.context(scriptedCluster([failing(new ErrReadOnly({ reasons: ["forbidden"] }))])), 4)
    const gate = await w.db().run(readGate(w.world().queue))
    expect(gate).toMatchObject({ state: "read-only", checkedAt: startMs })
    expect(gate?.reason).toContain("forbidden")
    expect((await w.row(id))["status"]).toBe("queued")
  })

  test("a job whose queue's config no longer decodes fails with every reason, without a cluster call", async () => {
    const id = await w.submit()
    const [saved] = await w.db().query<{ backend: unknown }>(`select backend from queues where id = $1`, [w.world().queue])
    await w.db().query(`update queues set backend = jsonb_set(jsonb_set(backend, '{config,mode}', '"nonsense"'), '{config,namespace}', '"Not A Name"') where id = $1`, [w.world().queue])
    try {
      const cluster = scriptedCluster([startOk])
      expect(await dispatchPass(w.context(cluster), 4)).toEqual({ claimed: 1, problems: [] })
      expect(cluster.runs()).toBe(0)
      const history = await w.history(id)
      expect(history.at(-1)).toMatchObject({ status: "failed", reason: expect.stringContaining(`queue ${w.world().queue}'s config does not decode`) })
      const reasons = String(history.at(-1)?.reason).split("does not decode: ")[1]?.split("; ") ?? []
      expect(reasons.length).toBeGreaterThan(1)
      expect(await w.row(id)).toMatchObject({ status: "failed", dispatch_state: "done", start_request: null })
    } finally {
      await w.db().query(`update queues set backend = $2::jsonb where id = $1`, [w.world().queue, JSON.stringify(saved?.backend)])
    }
  })

  test("a job whose queue lost its backend fails naming the queue", async () => {
    const id = await w.submit()
    const [saved] = await w.db().query<{ backend: unknown }>(`select backend from queues where id = $1`, [w.world().queue])
    await w.db().query(`update queues set backend = null where id = $1`, [w.world().queue])
    try {
      await dispatchPass(w.context(scriptedCluster([startOk])), 4)
      expect((await w.history(id)).at(-1)).toMatchObject({ status: "failed", reason: expect.stringContaining(`queue ${w.world().queue} has no backend`) })
    } finally {
      await w.db().query(`update queues set backend = $2::jsonb where id = $1`, [w.world().queue, JSON.stringify(saved?.backend)])
    }
  })

  /** The database, with `meanwhile` run right after the claim's transaction (another process or a user acting). */
  const afterClaim = (meanwhile: () => Promise<unknown>): Context.Context<Database> => {
    const db = w.db()
    const inner = db.client
    let first = true
    // The client as it is (the statements' constructor and every property), but for its transactions.
    const client = Object.assign((...args: Array<any>) => (inner as any)(...args), inner, {
      withTransaction: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        Effect.tap(inner.withTransaction(effect), () => {
          if (!first) return Effect.void
          first = false
          return Effect.promise(meanwhile)
        })
    }) as SqlClient.SqlClient
    return Context.add(db.context, SqlClient.SqlClient, client)
  }

  test("a job that left its group after the claim fails as gone, without a cluster call", async () => {
    const id = await w.submit()
    const cluster = scriptedCluster([startOk])
    await dispatchPass(w.context(cluster), 4, afterClaim(() => w.db().query(`update jobs set grp = 'speech' where id = $1`, [id])))
    expect(cluster.runs()).toBe(0)
    expect((await w.history(id)).at(-1)).toEqual({ status: "failed", reason: `job ${id} no longer exists` })
  })

  test("a job whose queue or entrypoint is gone fails naming both", async () => {
    const { queue, entrypoint } = w.world()
    for (const table of ["queues", "entrypoints"]) {
      const id = await w.submit()
      const id2 = table === "queues" ? queue : entrypoint
      const cluster = scriptedCluster([startOk])
      await dispatchPass(w.context(cluster), 4, afterClaim(() => w.db().query(`update ${table} set grp = 'speech' where id = $1`, [id2])))
      await w.db().query(`update ${table} set grp = 'vision' where id = $1`, [id2])
      expect(cluster.runs()).toBe(0)
      expect((await w.history(id)).at(-1)).toEqual({ status: "failed", reason: `the job's queue ${queue} or entrypoint ${entrypoint} no longer exists` })
    }
  })

  test("a job that cannot be made into a StartRequest fails with every problem, without a cluster call", async () => {
    const id = await w.submit()
    await w.db().query(`update jobs set swaps = '[{"swap_name": "training_method", "task_alias": "method_z"}]'::jsonb where id = $1`, [id])
    const cluster = scriptedCluster([startOk])
    // The JobID's entropy out of range: a second problem beside the swap.
    const entropy = (n: number) => Array.from({ length: n }, () => (n === 10 ? 256 : 128))
    expect(await dispatchPass(w.context(cluster, { entropy }), 4)).toEqual({ claimed: 1, problems: [] })
    expect(cluster.runs()).toBe(0)
    const last = (await w.history(id)).at(-1)
    expect(last?.status).toBe("failed")
    const reasons = String(last?.reason).split("; ")
    expect(reasons.length).toBeGreaterThan(1)
    for (const reason of reasons) expect(reason).toMatch(/\w/)
    expect(reasons.join("\n")).toMatch(/training_method/)
    expect(await w.row(id)).toMatchObject({ start_request: null, status: "failed" })
  })

  test("a closing service leaves the claim in place, for the lease to hand on, whichever call it was in", async () => {
    const abandoned = { kind: "abandoned", reason: "closing" } as const
    const start = await w.submit()
    expect(await dispatchPass(w.context(scriptedCluster([abandoned])), 4)).toEqual({ claimed: 1, problems: [] })
    expect(await w.row(start)).toMatchObject({ claimed_by: "tester", claim_until: startMs + 60_000, status: "queued", dispatch_state: "starting", trainjob: null })
    await w.db().query(`update jobs set dispatch_state = 'done', status = 'failed', claimed_by = null where id = $1`, [start])
    const open = await w.submit()
    expect(await dispatchPass(w.context(scriptedCluster([startOk, abandoned])), 4)).toEqual({ claimed: 1, problems: [] })
    expect(await w.row(open)).toMatchObject({ claimed_by: "tester", dispatch_state: "owned", trainjob: { name: "tj" } })
    await w.db().query(`update jobs set dispatch_state = 'done', status = 'failed', claimed_by = null where id = $1`, [open])
    const look = await w.submit()
    await dispatchPass(w.context(scriptedCluster([failing(new ErrOutcomeUnknown({ reasons: ["no answer"] }))])), 4)
    w.clock.now = startMs + 5000
    expect(await dispatchPass(w.context(scriptedCluster([abandoned])), 4)).toEqual({ claimed: 1, problems: [] })
    expect(await w.row(look)).toMatchObject({ claimed_by: "tester", dispatch_state: "claimed" })
  })

  test("every call of one attempt uses the StartRequest its claim made, though each draw of entropy differs", async () => {
    const sim = simulator()
    const id = await w.submit()
    let counter = 0
    const entropy = (n: number) => Array.from({ length: n }, () => counter++ % 256)
    expect(await dispatchPass(w.context(w.simCluster(sim), { entropy }), 4)).toEqual({ claimed: 1, problems: [] })
    const row = await w.row(id)
    expect(row["dispatch_state"]).toBe("opened")
    expect(stored(sim, "trainjobs")).toEqual([`dj-${String(row["start_request"].job).toLowerCase()}-s1`])
  })

  test("an answer for a job cancelled meanwhile is dropped and the claim given back; the TrainJob found is still recorded", async () => {
    const id = await w.submit()
    const cluster = {
      run: <A>() =>
        Effect.promise(async () => {
          await w.db().query(`update jobs set dispatch_state = 'stopping', status = 'cancelled' where id = $1`, [id])
          return startOk as unknown as { kind: "ok"; value: A }
        }),
      close: Effect.void
    }
    expect(await dispatchPass(w.context(cluster), 4)).toEqual({ claimed: 1, problems: [] })
    const row = await w.row(id)
    expect(row).toMatchObject({ dispatch_state: "stopping", status: "cancelled", claimed_by: null, claim_until: null, trainjob: { name: "tj" } })
    expect((await w.history(id)).map((h) => h.status)).toEqual(["queued"])
  })

  test("a job whose recording fails keeps its claim, and the pass reports it", async () => {
    const id = await w.submit()
    // The claim's transaction runs; every later one (the answer's) fails.
    let claims = 0
    const broken = await withTap(w.db(), failWhen((text) => (/^\s*begin/i.test(text) && claims++ > 0 ? new Error("connection lost") : undefined)))
    const report = await dispatchPass(w.context(scriptedCluster([startOk])), 4, broken.context).finally(broken.close)
    expect(report).toEqual({ claimed: 1, problems: [`job ${id}: connection lost`] })
    expect(await w.row(id)).toMatchObject({ claimed_by: "tester", dispatch_state: "starting" })
  })
})

describe("recordedError and problemOf", () => {
  test("a recorded error keeps its tag, reasons and the object it names", () => {
    const ref = { namespace: "ml-team", name: "tj", uid: "u" }
    expect(recordedError(new ErrRejected({ reasons: ["a", "b"], ref }))).toEqual({ error: "ErrRejected", reasons: ["a", "b"], ref })
    expect(recordedError(new ErrRejected({ reasons: ["a"] }))).toEqual({ error: "ErrRejected", reasons: ["a"] })
    expect("ref" in recordedError(new ErrInvalid({ reasons: ["a"] }))).toBe(false)
  })
  test("a problem names the job and the cause's message, or the cause itself", () => {
    expect(problemOf(3, new Error("lost"))).toBe("job 3: lost")
    expect(problemOf(4, "plain")).toBe("job 4: plain")
  })
})
