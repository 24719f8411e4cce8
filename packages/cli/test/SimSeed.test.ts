// The embedded simulator a command seeds: a state directory it cannot resume is answered as data (the
// command then fails with its reasons), never thrown past the command.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { StoreJournal } from "@dispatch/sim"
import { seededSimulator } from "../src/SimSeed.ts"

const dirs: Array<string> = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const stateDir = (objects: ReadonlyArray<unknown>): string => {
  const dir = mkdtempSync(join(tmpdir(), "dispatch-sim-seed-"))
  dirs.push(dir)
  writeFileSync(join(dir, "snapshot.json"), JSON.stringify({ format: "dispatch-sim-state/1", revision: 1, clock: 0, objects }))
  return dir
}

describe("seededSimulator", () => {
  it("answers a state directory holding a resource the simulator does not serve as unusable state, naming the resource", () => {
    const journal = StoreJournal.open(stateDir([{ resource: "widgets", object: { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w", namespace: "default" } } }]))
    try {
      const seeded = seededSimulator({ journal }, [])
      expect(seeded).toEqual({ problems: [expect.stringContaining(`resource "widgets" is not one the simulator serves`)], unusableState: true })
    } finally {
      journal.close()
    }
  })

  it("resumes a state directory of served resources", () => {
    const journal = StoreJournal.open(stateDir([{ resource: "namespaces", object: { apiVersion: "v1", kind: "Namespace", metadata: { name: "kept" } } }]))
    const seeded = seededSimulator({ journal }, [], ["kept"])
    try {
      expect("simulator" in seeded && seeded.simulator.system.get("namespaces", undefined, "kept")?.metadata?.["name"]).toBe("kept")
    } finally {
      if ("simulator" in seeded) seeded.simulator.close()
      else journal.close()
    }
  })
})
