// `-o json|yaml` on the commands that print one result at the end, or once they listen: the demo's
// summary, `sim serve`'s URL and kubeconfig, `serve`'s URL, database and this run's token. Stdout is
// then that one document; the lines for people go to stderr.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parse } from "yaml"
import { runCli } from "../../src/Cli.ts"
import { serveReadyLine } from "../../src/commands/ServeReady.ts"
import type { CliIo } from "../../src/CliIo.ts"
import { ExitCode } from "../../src/ExitCode.ts"
import { processIo } from "../../src/ProcessIo.ts"
import { recordingIo } from "../CommandLine.ts"
import { processBoundMs } from "../DispatchBinary.ts"

/** A recording CliIo on real files, whose stop the test gives. */
const stoppableIo = () => {
  const recorded = recordingIo()
  const real = processIo()
  let stop: () => void = () => {}
  const io: CliIo = { ...recorded.io, readFile: real.readFile, writeFile: real.writeFile, cwd: process.cwd(), stopRequested: new Promise<void>((resolve) => (stop = resolve)) }
  return { ...recorded, io, stop: () => stop() }
}

/** Waits (bounded far beyond a slow machine's start) until `check` holds. */
const until = async (check: () => boolean): Promise<boolean> => {
  for (const end = Date.now() + processBoundMs; Date.now() < end && !check(); ) await new Promise((r) => setTimeout(r, 25))
  return check()
}

let dir: string
beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), "dispatch-output-"))))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("-o json|yaml on demo, sim serve and serve", { timeout: processBoundMs }, () => {
  it("demo: one summary document on stdout, the steps on stderr", async () => {
    const [json, yaml] = [stoppableIo(), stoppableIo()]
    expect(await runCli(["demo", "-o", "json"], json.io)).toBe(ExitCode.ok)
    expect(await runCli(["demo", "-oyaml", "--speed", "100"], yaml.io)).toBe(ExitCode.ok)
    const expected = {
      namespace: "ml-team",
      mode: "plain",
      job: "01JD8X2Q4M7N9P3R5S6T8V0W1Y",
      submission: 17,
      trainJob: "ml-team/dj-01jd8x2q4m7n9p3r5s6t8v0w1y-s17",
      state: "Succeeded",
      objects: expect.arrayContaining([{ kind: "TrainJob", name: "dj-01jd8x2q4m7n9p3r5s6t8v0w1y-s17" }]),
      render: expect.stringMatching(/^dispatch render --request \S+request\.json --runtime \S+runtime\.yaml$/)
    }
    expect(JSON.parse(json.out.join("\n"))).toMatchObject({ ...expected, uid: expect.stringMatching(/^[0-9a-f-]{36}$/) })
    expect(parse(yaml.out.join("\n"))).toMatchObject(expected)
    expect(json.err.join("\n")).toContain("3. start")
  })

  it("refuses a format it does not know, naming the choices, with every other problem", async () => {
    const t = stoppableIo()
    expect(await runCli(["demo", "-o", "xml", "--speed", "0"], t.io)).toBe(ExitCode.usage)
    expect(t.err.join("\n")).toContain('-o/--output "xml" is not one of text, json, yaml')
    expect(t.err.join("\n")).toContain('--speed "0" is not a whole number')
  })

  it("sim serve: its URL, kubeconfig and setup once it listens", async () => {
    const t = stoppableIo()
    const kubeconfig = join(dir, "sim.kubeconfig")
    const exit = runCli(["sim", "serve", "-o", "json", "--port", "0", "--kubeconfig-out", kubeconfig, "--fault", "create:trainjobs=drop"], t.io)
    try {
      expect(await until(() => t.out.join("\n").endsWith("}"))).toBe(true)
      const summary = JSON.parse(t.out.join("\n")) as { url: string }
      expect(summary).toMatchObject({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), kubeconfig, mode: "plain", readOnly: false, faults: ["create:trainjobs=drop"] })
      expect((await fetch(`${summary.url}/version`)).status).toBe(200)
    } finally {
      t.stop()
    }
    expect(await exit).toBe(ExitCode.ok)
  })

  it("serve: the API's URL, its database and this run's token, which the API accepts", async () => {
    const t = stoppableIo()
    const saved = process.env["DATABASE_URL"]
    delete process.env["DATABASE_URL"]
    const exit = runCli(["serve", "-o", "yaml", "--port", "0", "--data-dir", join(dir, "data")], t.io)
    try {
      // The document is printed whole, at once.
      expect(await until(() => /^token: /m.test(t.out.join("\n")))).toBe(true)
      const summary = parse(t.out.join("\n")) as { url: string; token: string }
      expect(summary).toMatchObject({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/), openapi: `${summary.url}/openapi.json`, database: "pglite", dispatching: false })
      // The summary is printed once the service listens; the API serves once the ready line follows.
      expect(await until(() => t.err.some((line) => line.startsWith(serveReadyLine)))).toBe(true)
      expect((await fetch(`${summary.url}/queues`, { headers: { authorization: `Bearer ${summary.token}` } })).status).toBe(200)
    } finally {
      t.stop()
      if (saved !== undefined) process.env["DATABASE_URL"] = saved
    }
    expect(await exit).toBe(ExitCode.ok)
  })
})
