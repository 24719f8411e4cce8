// @dispatch/report against the real job service with faults injected between them: the campaign every report library
// meets (packages/server/test/report/ReporterCampaign.ts), run through reporter-driver.mjs, and what only a Node
// process has: the flush when it is about to exit, bounded however the service behaves. The reporter runs in a node
// process of its own (its build, as a training process loads it).
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { beforeAll, expect, test } from "vitest"
import { reporterCampaign, type ReporterLibrary } from "../../../server/test/report/ReporterCampaign.ts"

const packageDir = fileURLToPath(new URL("../../", import.meta.url))

const node: ReporterLibrary = {
  name: "@dispatch/report",
  command: process.execPath,
  args: [fileURLToPath(new URL("./reporter-driver.mjs", import.meta.url))],
  env: {},
  quote: '"',
  keyPattern: /^[0-9a-f-]{36}$/,
  happyRequestsBelow: 60
}

beforeAll(
  () =>
    new Promise<void>((resolve, reject) =>
      execFile("npx", ["tsc", "-b", packageDir], { timeout: 300_000 }, (error, stdout) => (error === null ? resolve() : reject(new Error(`tsc -b packages/report: ${stdout}`))))
    ),
  300_000
)

reporterCampaign(node, ({ service, proxy, run, envFor, stepsOf }) => {
  test("the flush at exit is bounded: with the service down the process still exits, saying what was left unsent", async () => {
    const job = await service().job("exit-down")
    proxy().use(() => ({ kind: "status", status: 503 }))
    const result = await run({ metrics: 120, options: { intervalMs: 50, batchSize: 50, backoffMs: 20, maxBackoffMs: 50, exitTimeoutMs: 500 } }, envFor(job))
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toMatch(/^@dispatch\/report: at exit, after 0\.5 s, \d+ buffered records and the batch being sent were left unsent\n$/)
    expect(proxy().seen.length).toBeGreaterThan(0)
    expect(await stepsOf(job.id)).toEqual([])
  })

  test("a request that never ends holds the process only while the flush at exit lasts", async () => {
    const job = await service().job("exit-hung")
    proxy().use(() => ({ kind: "delay", ms: 120_000 }))
    const result = await run({ metrics: 10, options: { exitTimeoutMs: 300 } }, envFor(job))
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toMatch(/at exit, after 0\.3 s, 0 buffered records and the batch being sent were left unsent/)
    expect(proxy().seen).toHaveLength(0)
  })
})
