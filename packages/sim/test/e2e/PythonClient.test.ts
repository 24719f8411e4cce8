// Kubernetes' Python client (Debian's python3-kubernetes, the package data scientists' tools build on)
// against the simulator's HTTP face, used as they use it: following a running pod's log, watching
// TrainJobs, reading Trainer's version ConfigMap and listing events. The scripts under test/python
// fail, never skip, when the package is missing.
import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { trainerNamespace, trainerPublicConfigMap } from "../../src/kinds/trainer/TrainerPublic.ts"
import { type Served, serve } from "../HttpFixture.ts"

const scripts = fileURLToPath(new URL("./python/", import.meta.url))
// Debian's package installs into Debian's own interpreter, whatever else is first on PATH.
const debianPython = "/usr/bin/python3"

const python = (served: Served, args: ReadonlyArray<string>) =>
  new Promise<{ readonly code: number; readonly output: string }>((resolve) => {
    execFile(
      debianPython,
      args,
      { cwd: scripts, env: { ...served.env, PYTHONPATH: scripts, PYTHONDONTWRITEBYTECODE: "1" }, timeout: 600_000 },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, output: `${stdout}${stderr}` })
    )
  })

describe("Kubernetes' Python client against the simulator", () => {
  let served: Served
  beforeAll(async () => {
    served = await serve({
      controllers: { trainer: { runTimeMs: 3000 } },
      objects: [{ apiVersion: "v1", kind: "Namespace", metadata: { name: trainerNamespace } }, trainerPublicConfigMap()]
    })
  })
  afterAll(async () => served.close())

  it("has python3-kubernetes to run", async () => {
    const run = await python(served, ["-c", "import kubernetes; print(kubernetes.__version__)"])
    expect(run.code, `${debianPython} cannot import kubernetes (apt-get install python3-kubernetes): ${run.output}`).toBe(0)
  })

  it("follows logs, watches TrainJobs, reads the version ConfigMap and lists events of a real cluster's shape", async () => {
    const run = await python(served, ["-m", "unittest", "discover", "-s", ".", "-p", "test_*.py", "-v"])
    // Every test ran: a module that failed to import or a skipped test would show here.
    expect(run.output).toMatch(/^Ran 6 tests in /m)
    expect(run.output).not.toMatch(/skipped/)
    expect(run.code, run.output).toBe(0)
    // Each TrainJob runs seconds of the simulator's clock, which follows real time: bounded for a busy machine.
  }, 300_000)
})
