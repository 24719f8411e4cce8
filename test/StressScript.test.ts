// `pnpm test:stress` (scripts/test-stress.mjs): the suite's status is its status, and its busy loops
// never outlive it, whether the suite ends by itself or the script is stopped. Each run here is a small
// vitest run (one file, or none) so the loops spin for seconds, not for a whole suite.
import { type ChildProcess, spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { alive } from "../packages/cli/test/Processes.ts"

const repo = fileURLToPath(new URL("..", import.meta.url))
const script = join(repo, "scripts", "test-stress.mjs")

interface Stress {
  readonly child: ChildProcess
  /** The busy loops' pids, from the script's first line. */
  readonly loops: Promise<ReadonlyArray<number>>
  readonly ended: Promise<{ readonly code: number | null; readonly out: string }>
}

const stress = (args: ReadonlyArray<string>): Stress => {
  // The campaign's size and database are the script's to choose, whatever this run was given.
  const { CAMPAIGN_RUNS: _runs, CAMPAIGN_DATABASE: _database, ...env } = process.env
  const child = spawn(process.execPath, [script, ...args], { cwd: repo, stdio: ["ignore", "pipe", "pipe"], env: { ...env, NO_COLOR: "1" } })
  let out = ""
  const loops = new Promise<ReadonlyArray<number>>((resolve, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const pids = /busy-loop processes \(pids ([\d, ]+)\)/.exec(out)?.[1]
      if (pids !== undefined) resolve(pids.split(", ").map(Number))
    })
    child.once("exit", () => reject(new Error(`no pids printed: ${out}`)))
  })
  child.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()))
  const ended = new Promise<{ code: number | null; out: string }>((resolve) => child.once("exit", (code) => resolve({ code, out })))
  return { child, loops, ended }
}

/** Waits (event by event: one check per 100 ms, bounded only by the test's timeout) until no pid is alive. */
const allGone = async (pids: ReadonlyArray<number>): Promise<void> => {
  // A killed loop can stay a zombie for a moment until init reaps it.
  while (pids.some(alive)) await new Promise((resolve) => setTimeout(resolve, 100))
}

describe("pnpm test:stress", () => {
  it("is the script the README names", () => {
    const scripts = (JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts
    expect(scripts["test:stress"]).toBe("node scripts/test-stress.mjs")
    expect(readFileSync(join(repo, "README.md"), "utf8")).toContain("`npx -y pnpm@12.4.2 test:stress`")
  })

  it("exits with the suite's status, passing or failing, and leaves no busy loop behind", async () => {
    const passing = stress(["packages/render/test/Duration.test.ts"])
    const failing = stress(["no-such-test-file-anywhere"])
    const [passLoops, failLoops] = await Promise.all([passing.loops, failing.loops])
    expect(passLoops).toHaveLength(2)
    expect(failLoops).toHaveLength(2)
    const [passed, failed] = await Promise.all([passing.ended, failing.ended])
    expect(passed.code, passed.out).toBe(0)
    expect(passed.out).toMatch(/\n\d+ passed, 0 failed\n/)
    expect(failed.code, failed.out).toBe(1)
    await allGone([...passLoops, ...failLoops])
  }, 300_000)

  it("runs the fault campaign at 1,000 schedules on PostgreSQL unless CAMPAIGN_RUNS and CAMPAIGN_DATABASE say otherwise", async () => {
    const run = stress(["packages/server/test/campaign/CampaignSize.test.ts"])
    const loops = await run.loops
    const ended = await run.ended
    await allGone(loops)
    expect(ended.code, ended.out).toBe(0)
    expect(ended.out).toContain("campaign size 1000 on postgres")
  }, 300_000)

  it("stops its busy loops and the suite when it is stopped (SIGTERM)", async () => {
    const run = stress(["packages/render/test/Duration.test.ts"])
    const loops = await run.loops
    expect(loops.every(alive)).toBe(true)
    run.child.kill("SIGTERM")
    const ended = await run.ended
    expect(ended.code).not.toBe(0)
    await allGone(loops)
  }, 300_000)
})
