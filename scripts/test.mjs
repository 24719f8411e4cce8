// `pnpm test`: runs vitest and ends with one plain line "N passed, N failed[, N skipped]" that any CI
// can read, whatever vitest's own reporter prints. Arguments are passed on to vitest.
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const dir = mkdtempSync(join(tmpdir(), "dispatch-test-"))
const results = join(dir, "results.json")
const run = spawnSync(
  process.execPath,
  ["node_modules/vitest/vitest.mjs", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${results}`, ...process.argv.slice(2)],
  { stdio: "inherit" }
)
let summary = "0 passed, 0 failed"
try {
  const r = JSON.parse(readFileSync(results, "utf8"))
  // A file that failed without running a test (it did not load) counts once; failed tests count themselves.
  const unloaded = (r.testResults ?? []).filter((f) => f.status === "failed" && (f.assertionResults ?? []).length === 0).length
  const failed = r.numFailedTests + unloaded
  const skipped = r.numPendingTests + r.numTodoTests
  summary = `${r.numPassedTests} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`
} catch {
  summary = "0 passed, 1 failed"
}
rmSync(dir, { recursive: true, force: true })
console.log(`\n${summary}`)
process.exitCode = run.status ?? 1
