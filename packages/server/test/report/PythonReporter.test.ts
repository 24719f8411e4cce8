// dispatch_report (Python) against the real job service with faults injected between them: the campaign every report
// library meets (ReporterCampaign.ts), run through reporter_driver.py, and what only the Python library has: the
// oldest Python it supports.
import { spawnSync } from "node:child_process"
import { existsSync, readdirSync } from "node:fs"
import { homedir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { expect, test } from "vitest"
import { forwardAfter, reporterCampaign, runDriver, type ReporterLibrary } from "./ReporterCampaign.ts"

const pythonDir = fileURLToPath(new URL("../../../../python/", import.meta.url))

// A Python 3.9 interpreter: python3.9 on the PATH, else one pyenv installed.
const pyenvVersions = join(process.env["PYENV_ROOT"] ?? join(homedir(), ".pyenv"), "versions")
const python39 = [
  "python3.9",
  ...(existsSync(pyenvVersions) ? readdirSync(pyenvVersions).filter((v) => v.startsWith("3.9.")).map((v) => join(pyenvVersions, v, "bin", "python3")) : [])
].find((candidate) => spawnSync(candidate, ["-c", "import sys; assert sys.version_info[:2] == (3, 9)"]).status === 0)

const python: ReporterLibrary = {
  name: "dispatch_report",
  command: "python3",
  args: [fileURLToPath(new URL("./reporter_driver.py", import.meta.url))],
  env: { PYTHONPATH: pythonDir },
  quote: "'",
  keyPattern: /^[0-9a-f]{32}$/,
  happyRequestsBelow: 50
}

reporterCampaign(python, ({ service, proxy, envFor, stepsOf }) => {
  // Where a Python 3.9 is installed (pyenv's, on the development machines) the library runs on it; where none is,
  // the newer python3 parses the library with 3.9's grammar, which refuses what 3.9 could not read.
  test("runs on the oldest Python it supports (3.9), or parses with its grammar where none is installed", async () => {
    if (python39 === undefined) {
      const check = spawnSync("python3", ["-c", "import ast, sys; ast.parse(open(sys.argv[1]).read(), feature_version=(3, 9))", join(pythonDir, "dispatch_report.py")], { encoding: "utf8" })
      expect(check.status, check.stderr).toBe(0)
      return
    }
    const job = await service().job("py39")
    proxy().use(forwardAfter([]))
    const run = await runDriver({ ...python, command: python39 }, { metrics: 100, close: 10 }, envFor(job))
    expect(run.code, run.stderr).toBe(0)
    expect(await stepsOf(job.id)).toHaveLength(100)
  })
})
