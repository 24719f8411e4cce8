// The library's example, examples/report-workload.mjs, as `dispatch demo service --exec` runs it where there is no
// python3: the job's pod is a real node process that reports through @dispatch/report, and what the service holds
// (which the demo prints) is what it logged.
import { execFile } from "node:child_process"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { binary, ensureBuilt, processBoundMs, processTestMs, repoRoot } from "../../../cli/test/DispatchBinary.ts"

// A PATH with nothing on it: no python3, so the demo runs the Node example (with the demo's own node).
const emptyPath = mkdtempSync(join(tmpdir(), "dispatch-no-python-"))
beforeAll(() => ensureBuilt(), processTestMs)
afterAll(() => rmSync(emptyPath, { recursive: true, force: true }))

const run = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  new Promise<{ readonly code: number; readonly stdout: string; readonly stderr: string }>((resolve) =>
    execFile(process.execPath, args, { cwd: repoRoot, timeout: processBoundMs, env }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr })
    )
  )

describe("examples/report-workload.mjs", { timeout: processTestMs }, () => {
  it("is the pod of `dispatch demo service --exec` without python3: its log lines and metrics reach the service through the library", async () => {
    const demo = await run([binary, "demo", "service", "--exec"], { PATH: emptyPath, NO_COLOR: "1" })
    expect(demo.stderr).toBe("")
    expect(demo.code).toBe(0)
    expect(demo.stdout).toContain("examples/report-workload.mjs as a local process")
    const trainJob = /^3\. status\s+finished\s+\(TrainJob ml-team\/(\S+)\)$/m.exec(demo.stdout)?.[1]
    expect(trainJob).toBeDefined()
    // Its lines, as the service holds them: the pod it ran as, and the job's 5 epochs from its job document.
    const logs = [...demo.stdout.matchAll(/^\s+INFO\s+report-workload: (.*)$/gm)].map((m) => m[1])
    expect(logs[0]).toMatch(new RegExp(`^workload started on pod ${trainJob}-node-0-0 \\(pid \\d+, node rank 0\\), 5 epochs$`))
    expect(logs.slice(1)).toEqual([...Array.from({ length: 5 }, (_, i) => expect.stringMatching(new RegExp(`^epoch ${i + 1}/5: loss [\\d.]+$`))), "training done"])
    // The last loss of its 100 steps and the loss of each epoch (the demo prints each metric's latest).
    expect(demo.stdout).toMatch(/^5\. metrics\n\s+epoch_loss = [\d.]+ \(step 5\)\n\s+loss = [\d.]+ \(step 99\)\n/m)
  })

  it("outside a job trains and prints, says once that reporting is off, and exits 0", async () => {
    const alone = await run([join(repoRoot, "examples", "report-workload.mjs")], { PATH: emptyPath })
    expect(alone.code, alone.stderr).toBe(0)
    expect(alone.stdout).toMatch(/^workload started on pod unknown \(pid \d+, node rank 0\), 3 epochs\n(epoch \d\/3: loss [\d.]+\n){3}training done\n$/)
    expect(alone.stderr).toBe("@dispatch/report: DIOPTRA_SERVICE_URL, DIOPTRA_JOB_ID and DIOPTRA_REPORT_TOKEN are not all set; reporting is off\n")
  })
})
