// A simulator on a state directory resumes what the last one held: objects with their uids and
// resourceVersions, the revision counter and the clock, whatever point it was dropped at (never closed,
// as a killed process leaves it; its flush timer is unref'd), a torn last line or a crash between a
// snapshot and the journal's truncation.
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fc, test } from "@fast-check/vitest"
import { afterAll, describe, expect, it } from "vitest"
import { type KubeObject } from "../src/Api.ts"
import { Resources } from "../src/kinds/Builtin.ts"
import { journalFile, snapshotFile, StoreJournal, StoreJournalError } from "../src/apiserver/store/StoreJournal.ts"
import { Simulator } from "../src/Simulator.ts"
import { lostContainerReason } from "../src/controllers/kubelet/LostContainers.ts"
import { create, get, initializerRuntime, list, plainRuntime, trainJob } from "./ControllersSim.ts"
import { eventually } from "./HttpFixture.ts"

const dirs: Array<string> = []
const freshDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "sim-journal-"))
  dirs.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

// Every stored object, by resource, as the store holds it (uids and resourceVersions included).
const everything = (sim: Simulator): Record<string, ReadonlyArray<KubeObject>> =>
  Object.fromEntries(Resources.map((r) => [r.plural, sim.system.list(r.plural)]))


describe("StoreJournal", () => {
  it("a simulator dropped mid-run resumes its objects, revisions and clock, and its TrainJob runs to the end", () => {
    const dir = freshDir()
    const journal = StoreJournal.open(dir)
    const first = new Simulator({ journal, objects: [plainRuntime, initializerRuntime], controllers: { trainer: { runTimeMs: 10_000 } } })
    expect(first.resumed).toBe(false)
    expect(create(first, "trainjobs", trainJob("train")).code).toBe(201)
    first.advance(4000)
    const before = everything(first)
    expect(before["pods"]?.length).toBeGreaterThan(0)
    const clock = first.now()
    const revision = Number(get(first, "trainjobs", "train").metadata?.["resourceVersion"])
    journal.flush()

    const second = new Simulator({ journal: StoreJournal.open(dir), controllers: { trainer: { runTimeMs: 10_000 } } })
    expect(second.resumed).toBe(true)
    expect(second.now()).toBe(clock)
    expect(everything(second)).toEqual(before)
    // Writes continue past the old revisions, with uids the first run did not hand out.
    expect(create(second, "trainjobs", trainJob("next")).code).toBe(201)
    const next = get(second, "trainjobs", "next")
    expect(Number(next.metadata?.["resourceVersion"])).toBeGreaterThan(revision)
    const uids = new Set(Object.values(before).flat().map((o) => o.metadata?.["uid"]))
    expect(uids.has(next.metadata?.["uid"])).toBe(false)
    second.advance(20_000)
    const conditions = (get(second, "trainjobs", "train").status as { conditions?: ReadonlyArray<{ type: string; status: string }> }).conditions ?? []
    expect(conditions.find((c) => c.type === "Complete")?.status).toBe("True")
    expect(list(second, "pods").every((p) => (p.status as { phase?: string }).phase === "Succeeded")).toBe(true)
    void second.close()
  })

  it("with exec, a resumed simulator fails the pods whose processes went with the last one, and their TrainJob ends", async () => {
    const dir = freshDir()
    const exec = { workloads: { exec: { graceMs: 300 } } }
    const first = new Simulator({ journal: StoreJournal.open(dir), objects: [plainRuntime], controllers: exec })
    expect(create(first, "trainjobs", trainJob("long", { trainer: { command: ["sh", "-c", "echo started; sleep 600"] } })).code).toBe(201)
    const running = await eventually(() => {
      first.advance(100)
      return list(first, "pods").some((p) => (p.status as { phase?: string } | undefined)?.phase === "Running")
    })
    expect(running).toBe(true)
    // The process goes, the store still says Running: what a kill leaves.
    await first.close()
    const second = new Simulator({ journal: StoreJournal.open(dir), controllers: exec })
    const pod = list(second, "pods")[0]
    expect(pod?.status).toMatchObject({ phase: "Failed", reason: lostContainerReason, containerStatuses: [{ state: { terminated: { exitCode: 137 } } }] })
    const ended = await eventually(() => {
      second.advance(100)
      const conditions = (get(second, "trainjobs", "long").status as { conditions?: ReadonlyArray<{ type: string; status: string }> } | undefined)?.conditions ?? []
      return conditions.some((c) => c.type === "Failed" && c.status === "True")
    })
    expect(ended).toBe(true)
    await second.close()
  })

  it("cuts off a torn last line, and journals after it cleanly", () => {
    const dir = freshDir()
    const journal = StoreJournal.open(dir)
    const first = new Simulator({ journal, objects: [plainRuntime] })
    const before = everything(first)
    appendFileSync(join(dir, journalFile), '{"revision":99,"clock":1,"resource":"namespaces","type":"put","object":{"metadata":{"na')
    const reopened = StoreJournal.open(dir)
    const second = new Simulator({ journal: reopened })
    expect(everything(second)).toEqual(before)
    expect(readFileSync(join(dir, journalFile), "utf8").endsWith("\n")).toBe(true)
    create(second, "trainjobs", trainJob("after"))
    const third = new Simulator({ journal: StoreJournal.open(dir) })
    expect(get(third, "trainjobs", "after").metadata?.["uid"]).toBe(get(second, "trainjobs", "after").metadata?.["uid"])
    void third.close()
  })

  it("refuses a journal damaged before its last line, naming the line, and changes nothing", () => {
    const dir = freshDir()
    const first = new Simulator({ journal: StoreJournal.open(dir), objects: [plainRuntime] })
    void first.close()
    const text = readFileSync(join(dir, journalFile), "utf8")
    const damaged = text.replace(/^.*\n/, "{not json}\n")
    writeFileSync(join(dir, journalFile), `${damaged}{"clock":"x"}\n`)
    let error: unknown
    try {
      StoreJournal.open(dir)
    } catch (cause) {
      error = cause
    }
    expect(error).toBeInstanceOf(StoreJournalError)
    expect((error as StoreJournalError).reasons).toEqual([expect.stringMatching(/^journal\.ndjson line 1: not JSON/), expect.stringMatching(/line \d+: not a journal record/)])
    expect(readFileSync(join(dir, journalFile), "utf8")).toBe(`${damaged}{"clock":"x"}\n`)
  })

  it("folds the journal into a snapshot; a crash before the journal is emptied replays nothing twice", () => {
    const dir = freshDir()
    const journal = StoreJournal.open(dir, { compactBytes: 1 })
    const first = new Simulator({ journal, objects: [plainRuntime] })
    for (let i = 0; i < 5; i++) create(first, "trainjobs", trainJob(`job-${i}`))
    const journalBefore = readFileSync(join(dir, journalFile), "utf8")
    journal.flush()
    expect(existsSync(join(dir, snapshotFile))).toBe(true)
    expect(statSync(join(dir, journalFile)).size).toBe(0)
    const before = everything(first)
    expect(everything(new Simulator({ journal: StoreJournal.open(dir) }))).toEqual(before)
    // The crash: the new snapshot is in place, the journal still holds what it folded in.
    writeFileSync(join(dir, journalFile), journalBefore)
    const again = new Simulator({ journal: StoreJournal.open(dir) })
    expect(everything(again)).toEqual(before)
    void again.close()
  })

  // Namespaces made, labelled and deleted in any order, with the state folded into snapshots at any
  // points and the process dropped at the end: the resumed store is the live one.
  test.prop(
    [
      fc.array(
        fc.oneof(
          fc.record({ op: fc.constant("create" as const), n: fc.integer({ min: 0, max: 5 }) }),
          fc.record({ op: fc.constant("label" as const), n: fc.integer({ min: 0, max: 5 }), value: fc.string({ maxLength: 8 }) }),
          fc.record({ op: fc.constant("delete" as const), n: fc.integer({ min: 0, max: 5 }) }),
          fc.record({ op: fc.constant("compact" as const) }),
          fc.record({ op: fc.constant("advance" as const), ms: fc.double({ min: 0.001, max: 5000, noNaN: true }) })
        ),
        { maxLength: 30 }
      )
    ],
    { numRuns: 40 }
  )("the resumed store equals the live one after any writes and snapshots", (ops) => {
    const dir = freshDir()
    const journal = StoreJournal.open(dir, { compactBytes: Number.MAX_SAFE_INTEGER })
    const sim = new Simulator({ journal })
    for (const step of ops) {
      const name = `ns-${"n" in step ? step.n : 0}`
      if (step.op === "create") sim.system.create("namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name } })
      else if (step.op === "label") {
        const current = sim.system.get("namespaces", undefined, name)
        if (current !== undefined) sim.system.update("namespaces", { ...current, metadata: { ...current.metadata, labels: { v: step.value.replace(/[^a-z]/g, "") || "x" } } })
      } else if (step.op === "delete") sim.system.delete("namespaces", undefined, name)
      else if (step.op === "compact") journal.compact()
      else sim.advance(step.ms)
    }
    journal.flush()
    const resumed = new Simulator({ journal: StoreJournal.open(dir) })
    expect(everything(resumed)).toEqual(everything(sim))
    expect(resumed.now()).toBe(sim.now())
    void resumed.close()
  })
})
