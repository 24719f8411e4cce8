import { spawn } from "node:child_process"
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises"
import { hostname, tmpdir } from "node:os"
import { join } from "node:path"
import { Result } from "effect"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { lockDataDir, lockFileName } from "../src/store/DataDirLock.ts"
import { serve } from "../src/index.ts"
import { started, tokenEntries } from "./Fixtures.ts"

/** The pid of a process that has exited (and been reaped), so no process of this host has it now. */
const deadPid = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" })
    child.once("error", reject)
    child.once("exit", () => resolve(child.pid ?? -1))
  })

describe("one service per PGlite data directory", () => {
  let dir = ""
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "dispatch-lock-"))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  test("a second service on a data directory in use is refused, naming the holder; after close the directory is free", async () => {
    const dataDir = join(dir, "busy")
    const first = await started({ dataDir })
    try {
      const second = await serve({ tokens: tokenEntries, dataDir })
      expect(Result.isFailure(second) && second.failure.stage).toBe("lock")
      expect(Result.isFailure(second) && second.failure.message).toContain(`in use by dispatch serve pid ${process.pid} on ${hostname()}`)
    } finally {
      await first.close()
    }
    const again = await started({ dataDir })
    await again.close()
  })

  test("a lock left by a process that no longer runs is taken over; a live one is not", async () => {
    const dataDir = join(dir, "stale")
    const first = await lockDataDir(dataDir)
    if (Result.isFailure(first)) throw new Error(first.failure)
    const path = join(dataDir, lockFileName)
    const mine = JSON.parse(await readFile(path, "utf8"))
    expect(mine).toMatchObject({ pid: process.pid, host: hostname() })
    await writeFile(path, JSON.stringify({ ...mine, pid: await deadPid() }))
    const taken = await lockDataDir(dataDir)
    expect(Result.isSuccess(taken)).toBe(true)
    // The first holder's release leaves the new holder's lock alone.
    await first.success.release()
    const refused = await lockDataDir(dataDir)
    expect(Result.isFailure(refused) && refused.failure).toContain(`pid ${process.pid}`)
    if (Result.isSuccess(taken)) await taken.success.release()
    expect(Result.isSuccess(await lockDataDir(dataDir))).toBe(true)
  })

  test("a lock naming another host is never judged dead from here", async () => {
    const dataDir = join(dir, "remote")
    await lockDataDir(dataDir).then((r) => (Result.isSuccess(r) ? r.success.release() : undefined))
    await writeFile(join(dataDir, lockFileName), JSON.stringify({ pid: 1, host: "elsewhere", since: "2026-01-01T00:00:00Z", token: "x" }))
    const refused = await lockDataDir(dataDir, () => false)
    expect(Result.isFailure(refused) && refused.failure).toContain(`pid 1 on elsewhere`)
    expect(Result.isFailure(refused) && refused.failure).toContain(`delete ${join(dataDir, lockFileName)}`)
  })
})
