import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import type { JobServer } from "../src/index.ts"
import { started } from "./Fixtures.ts"

// The Python tests send exactly the requests Dioptra's own client sends (test/dioptra/stdclient mirrors it with
// Python's standard library only, so every machine with python3 runs them), cookie session included.
const dioptraDir = fileURLToPath(new URL("./dioptra/", import.meta.url))

const python = (url: string, args: ReadonlyArray<string>) =>
  new Promise<{ readonly code: number; readonly output: string }>((resolve) => {
    execFile(
      "python3",
      ["-m", "unittest", ...args],
      { cwd: dioptraDir, env: { ...process.env, DIOPTRA_API: url, PYTHONPATH: dioptraDir, PYTHONDONTWRITEBYTECODE: "1" }, timeout: 300_000 },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, output: `${stdout}${stderr}` })
    )
  })

describe("Dioptra's Python client against the service", () => {
  let server: JobServer
  beforeAll(async () => {
    server = await started({ signup: true })
  })
  afterAll(async () => {
    await server.close()
  })

  test("users, auth, groups, queues, entrypoints, experiments and jobs work through the client's own requests", async () => {
    const run = await python(server.url, ["discover", "-s", ".", "-p", "test_*.py", "-v"])
    expect(run.output).toMatch(/Ran [1-9][0-9]* tests?/)
    expect(run.code, run.output).toBe(0)
  })
})
