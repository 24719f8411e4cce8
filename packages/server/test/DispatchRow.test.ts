// How the dispatch machine's state is kept in a job's row: every state written by writeAnswer reads back as itself,
// the guard drops an answer for a row that moved, and the claim, error, history and modification time are written as
// the answer says; checked on what the database stores.
import type { DispatchState } from "@dispatch/jobs"
import { Result, Schema } from "effect"
import { describe, expect, test } from "vitest"
import { rowAfter, stateOf } from "../src/dispatch/DispatchRow.ts"
import { isClaimed, StoredNumber, storedStateOf, type DispatchRow } from "../src/store/DispatchRows.ts"
import { lockDispatchRow, writeAnswer } from "./DispatchQueries.ts"
import { startMs, useDispatchWorld } from "./DispatchWorld.ts"

const w = useDispatchWorld("DispatchRow")
const at = "2026-06-01T13:00:00.000Z"

const lock = async (id: number): Promise<DispatchRow> => {
  const row = await lockDispatchRow(w.db(), id)
  if (row === undefined) throw new Error(`no job ${id}`)
  return row
}

const write = (row: DispatchRow, state: DispatchState, extras: Parameters<typeof writeAnswer>[4] = {}, commands: ReadonlyArray<never> = []) =>
  writeAnswer(w.db(), row, { state, commands }, at, extras)

const t = startMs + 1000

// Every machine state, with the fields its row keeps (a held job on the cluster keeps no retry time, faults or first
// attempt; a job that runs keeps no faults).
const states: ReadonlyArray<DispatchState> = [
  { kind: "queued", attempts: 2, retryAt: t + 5, firstAt: t, faults: ["first", "second"] },
  { kind: "queued", attempts: 0, retryAt: t, firstAt: null, faults: [] },
  { kind: "claimed", attempts: 1, firstAt: t + 1, faults: ["f"] },
  { kind: "starting", attempts: 3, firstAt: t + 2, faults: [] },
  { kind: "owned", attempts: 4, firstAt: t + 3, faults: ["a", "b"] },
  { kind: "unknown", attempts: 2, landsBy: t + 9, firstAt: t + 4, faults: ["lost"] },
  { kind: "running", attempts: 1, status: "queued" },
  { kind: "running", attempts: 2, status: "started" },
  { kind: "holding", attempts: 1, from: "started", onCluster: false, retryAt: t + 7, firstAt: t + 6, faults: ["x"] },
  { kind: "holding", attempts: 0, from: "queued", onCluster: false, retryAt: t, firstAt: null, faults: [] },
  { kind: "holding", attempts: 1, from: "started", onCluster: true, retryAt: 0, firstAt: null, faults: [] },
  { kind: "holding", attempts: 1, from: "queued", onCluster: true, retryAt: 0, firstAt: null, faults: [] },
  { kind: "stopping", attempts: 1, ends: "cancelled", status: "failed", reason: "cancelled by its user", retryAt: t + 8, tries: 2 },
  { kind: "stopping", attempts: 1, ends: "deleted", status: "started", reason: "deleted", retryAt: t, tries: 0 },
  { kind: "stopping", attempts: 1, ends: "failed", status: "failed", reason: "refused", retryAt: t + 1, tries: 5 },
  { kind: "done", attempts: 2, status: "finished", reason: "Completed" },
  { kind: "done", attempts: 1, status: "failed", reason: null },
  { kind: "deleted", attempts: 1, status: "failed" }
]

describe("a state written to a job's row", () => {
  test.each(states.map((s) => [`${s.kind} ${JSON.stringify(s)}`, s] as const))("reads back as itself: %s", async (_, state) => {
    const id = await w.submit()
    // A job is held before it reaches the cluster only from queued, whose first attempt and faults its row keeps.
    if (state.kind === "holding" && !state.onCluster) await write(await lock(id), { kind: "queued", attempts: state.attempts, retryAt: 0, firstAt: state.firstAt, faults: state.faults })
    const before = await lock(id)
    expect(await write(before, state)).toBe(true)
    const row = await lock(id)
    expect(stateOf(row)).toEqual(state)
    expect(row.dispatchState).toBe(storedStateOf(state))
    // The guard of the next write is the row as this one left it.
    const after = rowAfter(before, state, null)
    expect({ dispatchState: row.dispatchState, status: row.status, deleted: row.deleted, claimedBy: row.claimedBy }).toEqual({
      dispatchState: after.dispatchState,
      status: after.status,
      deleted: after.deleted,
      claimedBy: after.claimedBy
    })
    expect(typeof row.attempts).toBe("number")
    expect(typeof row.nextAttemptAt).toBe("number")
    expect(typeof row.stopTries).toBe("number")
  })

  test("a queued or unknown state keeps its last fault as the reason; running and done clear what no longer holds", async () => {
    const id = await w.submit()
    const row = await lock(id)
    await write(row, { kind: "unknown", attempts: 1, landsBy: t + 9, firstAt: t, faults: ["one", "two"] }, { error: { error: "ErrOutcomeUnknown" } })
    expect(await w.row(id)).toMatchObject({ dispatch_reason: "two", lands_by: t + 9, next_attempt_at: t + 9, last_error: { error: "ErrOutcomeUnknown" } })
    await write(await lock(id), { kind: "running", attempts: 1, status: "queued" })
    expect(await w.row(id)).toMatchObject({ dispatch_reason: null, last_error: null, lands_by: null, held_from: null })
    await write(await lock(id), { kind: "holding", attempts: 1, from: "queued", onCluster: true, retryAt: 0, firstAt: null, faults: [] })
    expect(await w.row(id)).toMatchObject({ dispatch_reason: "held", held_from: "queued", dispatch_state: "held", status: "deferred" })
    await write(await lock(id), { kind: "queued", attempts: 1, retryAt: t, firstAt: t, faults: [] })
    expect(await w.row(id)).toMatchObject({ dispatch_reason: null, lands_by: null })
    await write(await lock(id), { kind: "unknown", attempts: 1, landsBy: t + 9, firstAt: t, faults: ["z"] })
    await write(await lock(id), { kind: "done", attempts: 1, status: "failed", reason: "gone" })
    expect(await w.row(id)).toMatchObject({ dispatch_reason: "gone", lands_by: null, deleted: false })
    await write(await lock(id), { kind: "deleted", attempts: 1, status: "failed" })
    expect(await w.row(id)).toMatchObject({ deleted: true, lands_by: null, dispatch_state: "done" })
  })

  test("a stopping state that ends in deletion marks the job deleted; one that ends otherwise does not", async () => {
    const id = await w.submit()
    await write(await lock(id), { kind: "stopping", attempts: 1, ends: "cancelled", status: "failed", reason: "r", retryAt: t, tries: 0 })
    expect((await w.row(id))["deleted"]).toBe(false)
    await write(await lock(id), { kind: "stopping", attempts: 1, ends: "deleted", status: "failed", reason: "r", retryAt: t, tries: 1 })
    expect(await w.row(id)).toMatchObject({ deleted: true, stop_ends: "deleted", stop_tries: 1, next_attempt_at: t })
  })
})

describe("the write's guard", () => {
  test("drops an answer for a row whose state, status, deletion or claim moved, writing nothing", async () => {
    const id = await w.submit()
    const row = await lock(id)
    const next: DispatchState = { kind: "done", attempts: 0, status: "failed", reason: "r" }
    const record = [{ type: "record", status: "failed", reason: "r" }] as never
    for (const moved of [
      { ...row, dispatchState: "opened" as const },
      { ...row, status: "started" as const },
      { ...row, deleted: true },
      { ...row, claimedBy: "someone" }
    ]) {
      expect(await writeAnswer(w.db(), moved, { state: next, commands: record }, at)).toBe(false)
    }
    expect(await w.row(id)).toMatchObject({ status: "queued", dispatch_state: "pending" })
    expect((await w.history(id)).map((h) => h.status)).toEqual(["queued"])
    await w.db().query(`update jobs set claimed_by = 'me' where id = $1`, [id])
    expect(await writeAnswer(w.db(), row, { state: next, commands: record }, at)).toBe(false)
    expect(await writeAnswer(w.db(), { ...row, claimedBy: "me" }, { state: next, commands: record }, at)).toBe(true)
    expect(await w.history(id)).toEqual([
      { status: "queued", reason: null },
      { status: "failed", reason: "r" }
    ])
    expect(await w.row(id)).toMatchObject({ last_modified_on: at, status: "failed", claimed_by: null })
  })
})

describe("what else a write sets", () => {
  const claimed: DispatchState = { kind: "starting", attempts: 1, firstAt: t, faults: [] }

  test("a claim taken by a holder, kept, or released", async () => {
    const id = await w.submit()
    await write(await lock(id), claimed, { claim: { holder: "p1", untilMs: t + 100 } })
    expect(await w.row(id)).toMatchObject({ claimed_by: "p1", claim_until: t + 100 })
    // A claimed state keeps the claim unless told.
    await write(await lock(id), { kind: "owned", attempts: 1, firstAt: t, faults: [] })
    expect(await w.row(id)).toMatchObject({ claimed_by: "p1", claim_until: t + 100 })
    await write(await lock(id), { kind: "queued", attempts: 1, retryAt: t, firstAt: t, faults: [] }, { claim: "keep" })
    expect(await w.row(id)).toMatchObject({ claimed_by: "p1", claim_until: t + 100 })
    // A resting state gives it back.
    await write(await lock(id), { kind: "queued", attempts: 1, retryAt: t, firstAt: t, faults: [] })
    expect(await w.row(id)).toMatchObject({ claimed_by: null, claim_until: null })
    await write(await lock(id), claimed, { claim: { holder: "p2", untilMs: t + 200 } })
    await write(await lock(id), claimed, { claim: "release" })
    expect(await w.row(id)).toMatchObject({ claimed_by: null, claim_until: null })
  })

  test("the typed error is written, cleared with null, and left alone when not given", async () => {
    const id = await w.submit()
    await write(await lock(id), claimed, { error: { error: "ErrRejected", reasons: ["no"] } })
    expect((await w.row(id))["last_error"]).toEqual({ error: "ErrRejected", reasons: ["no"] })
    await write(await lock(id), claimed)
    expect((await w.row(id))["last_error"]).toEqual({ error: "ErrRejected", reasons: ["no"] })
    await write(await lock(id), claimed, { error: null })
    // Cleared is SQL NULL, not a JSON null: both read as null, only the database tells them apart.
    const [cleared] = await w.db().query<{ cleared: boolean }>(`select last_error is null as cleared from jobs where id = $1`, [id])
    expect(cleared).toEqual({ cleared: true })
  })

  test("the modification time moves with a recorded status, or when asked, and not otherwise", async () => {
    const id = await w.submit()
    const created = (await w.row(id))["last_modified_on"]
    await write(await lock(id), claimed)
    expect((await w.row(id))["last_modified_on"]).toBe(created)
    await write(await lock(id), claimed, { modified: true })
    expect((await w.row(id))["last_modified_on"]).toBe(at)
    await w.db().query(`update jobs set last_modified_on = $2 where id = $1`, [id, created])
    await write(await lock(id), { kind: "done", attempts: 1, status: "failed", reason: "x" }, {}, [{ type: "record", status: "failed" }, { type: "retryAt", at: 1 }, { type: "record", status: "finished", reason: "y" }] as never)
    expect((await w.row(id))["last_modified_on"]).toBe(at)
    expect(await w.history(id)).toEqual([
      { status: "queued", reason: null },
      { status: "failed", reason: null },
      { status: "finished", reason: "y" }
    ])
  })
})

describe("a row as read", () => {
  const base: DispatchRow = {
    id: 1,
    group: "g",
    queue: 1,
    status: "queued",
    dispatchState: "pending",
    attempts: 1,
    nextAttemptAt: 50,
    landsBy: null,
    firstAttemptAt: null,
    faults: [],
    stopEnds: null,
    stopTries: 0,
    reason: null,
    heldFrom: null,
    deleted: false,
    claimedBy: null,
    key: null
  }

  test("a claimed row without a first attempt's time takes its retry time; an unknown one without a bound takes it too", () => {
    expect(stateOf({ ...base, dispatchState: "claimed" })).toEqual({ kind: "claimed", attempts: 1, firstAt: 50, faults: [] })
    expect(stateOf({ ...base, dispatchState: "owned", firstAttemptAt: 7 })).toEqual({ kind: "owned", attempts: 1, firstAt: 7, faults: [] })
    expect(stateOf({ ...base, dispatchState: "unknown" })).toEqual({ kind: "unknown", attempts: 1, landsBy: 50, firstAt: 50, faults: [] })
  })

  test("a stopping row without its end stored ends as deleted when the job is deleted, else as cancelled", () => {
    expect(stateOf({ ...base, dispatchState: "stopping", deleted: true })).toMatchObject({ kind: "stopping", ends: "deleted", reason: "" })
    expect(stateOf({ ...base, dispatchState: "stopping" })).toMatchObject({ kind: "stopping", ends: "cancelled" })
  })

  test("a held-from other than started reads as queued; a done row of a deleted job is deleted", () => {
    expect(stateOf({ ...base, dispatchState: "held", heldFrom: null })).toMatchObject({ kind: "holding", from: "queued", onCluster: true })
    expect(stateOf({ ...base, status: "deferred", heldFrom: "started" })).toMatchObject({ kind: "holding", from: "started", onCluster: false, retryAt: 50 })
    expect(stateOf({ ...base, dispatchState: "done", deleted: true, status: "failed" })).toEqual({ kind: "deleted", attempts: 1, status: "failed" })
    expect(stateOf({ ...base, dispatchState: "opened", status: "deferred" })).toEqual({ kind: "running", attempts: 1, status: "queued" })
  })

  test("a stored number is read as a number, from a number or from its text (a bigint column), and nothing else", () => {
    const decode = Schema.decodeUnknownResult(StoredNumber)
    expect([3, "3", "9.5", "-2"].map((value) => Result.getOrUndefined(decode(value)))).toEqual([3, 3, 9.5, -2])
    for (const value of ["x", "NaN", "Infinity", Number.POSITIVE_INFINITY, Number.NaN, null, true]) expect(Result.isFailure(decode(value)), String(value)).toBe(true)
  })

  test("a claimed state is exactly claimed, starting or owned", () => {
    expect(states.filter(isClaimed).map((s) => s.kind)).toEqual(["claimed", "starting", "owned"])
  })

  test("the row after a write keeps a deletion, and takes one from the state", () => {
    expect(rowAfter({ ...base, deleted: true }, { kind: "running", attempts: 1, status: "started" }, "p").deleted).toBe(true)
    expect(rowAfter(base, { kind: "deleted", attempts: 1, status: "failed" }, null).deleted).toBe(true)
    expect(rowAfter(base, { kind: "stopping", attempts: 1, ends: "deleted", status: "failed", reason: "", retryAt: 0, tries: 0 }, null).deleted).toBe(true)
    expect(rowAfter(base, { kind: "stopping", attempts: 1, ends: "cancelled", status: "failed", reason: "", retryAt: 0, tries: 0 }, null).deleted).toBe(false)
    expect(rowAfter(base, { kind: "running", attempts: 1, status: "started" }, "p")).toMatchObject({ dispatchState: "opened", status: "started", claimedBy: "p", deleted: false })
  })

  test("a missing row reads as none", async () => {
    expect(await lockDispatchRow(w.db(), 999_999)).toBeUndefined()
  })
})
