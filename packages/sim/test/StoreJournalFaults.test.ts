// A state directory that stops taking writes (a full disk): the store's write still reaches every
// listener, journaling stops, the failure is reported once, and what was written before still resumes.
import { mkdtempSync, rmSync, writeSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { StoreJournal, StoreJournalError } from "../src/apiserver/store/StoreJournal.ts"
import { Simulator } from "../src/Simulator.ts"

// Appends fail with ENOSPC while `full` is set, as on a full disk. (Through the journal's write option, not
// a module mock: the suite shares modules between files.)
const disk = { full: false }
const write = (fd: number, text: string): void => {
  if (disk.full) throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" })
  writeSync(fd, text)
}

const dir = mkdtempSync(join(tmpdir(), "sim-journal-faults-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const namespace = (name: string) => ({ apiVersion: "v1", kind: "Namespace", metadata: { name } })

describe("StoreJournal on a disk that fills up", () => {
  it("reports the failure once and stops; the simulator keeps serving; what was written resumes", () => {
    const failures: Array<unknown> = []
    const journal = StoreJournal.open(dir, { onFailure: (error) => failures.push(error), write })
    const sim = new Simulator({ journal })
    expect(sim.system.create("namespaces", namespace("before")).code).toBe(201)
    const heard: Array<string> = []
    sim.onChange((change) => heard.push(String(change.object.metadata?.["name"])))
    disk.full = true
    expect(sim.system.create("namespaces", namespace("during")).code).toBe(201)
    expect(sim.system.create("namespaces", namespace("after")).code).toBe(201)
    disk.full = false
    // Every listener heard every write; the journal failed once and wrote nothing more.
    expect(heard).toEqual(["during", "after"])
    expect(failures).toHaveLength(1)
    expect(failures[0]).toBeInstanceOf(StoreJournalError)
    expect((failures[0] as InstanceType<typeof StoreJournalError>).message).toContain("ENOSPC")
    journal.flush()
    journal.close()
    const resumed = new Simulator({ journal: StoreJournal.open(dir) })
    expect(resumed.system.list("namespaces").map((n) => n.metadata?.["name"])).toEqual(["before", "default"])
    void resumed.close()
  })
})
