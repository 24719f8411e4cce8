// `dispatch serve` and `dispatch serve hash-token`, run as a user runs them: the built binary.
import { spawn } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ExitCode } from "../../src/ExitCode.ts"
import { serveReadyLine } from "../../src/commands/ServeReady.ts"
import { background, binary, dispatch, ensureBuilt, processTestMs } from "../DispatchBinary.ts"
import { alive } from "../Processes.ts"
import { client } from "../../../server/test/Fixtures.ts"

const dir = mkdtempSync(join(tmpdir(), "dispatch-serve-"))
beforeAll(() => ensureBuilt(), processTestMs)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// `dispatch serve` on PGlite in `dataDir` (whatever DATABASE_URL the test run has): ready once it prints its URL (it
// listens) or exits; served once it says it serves (its database open). A fresh PGlite directory takes seconds to initialise, many more on a busy machine, so the bound is wide.
const readyLine = new RegExp(`^${serveReadyLine}`, "m")

const serveOn = (dataDir: string, databaseUrl = "") => {
  const child = spawn("node", [binary, "serve", "--port", "0", "--data-dir", dataDir], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, DATABASE_URL: databaseUrl } })
  let out = ""
  let err = ""
  let serving: () => void = () => undefined
  const served = new Promise<void>((resolve) => (serving = resolve))
  child.stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString()
    if (readyLine.test(err)) serving()
  })
  const ready = new Promise<{ readonly url?: string; readonly code?: number | null }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`dispatch serve neither listened nor exited within 240 s: ${err}`)), 240_000)
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const url = /^(http:\/\/127\.0\.0\.1:\d+)\/api\/v1\n/.exec(out)?.[1]
      if (url !== undefined) {
        clearTimeout(timer)
        resolve({ url })
      }
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      resolve({ code })
    })
  })
  return { child, ready, served, stderr: () => err }
}

const get = async (url: string, token?: string) =>
  (await fetch(url, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } })).status

describe("dispatch serve", { timeout: processTestMs }, () => {
  it("serves the job API on PGlite with a token made for the run, and stops cleanly on SIGTERM", async () => {
    const served = await background(["serve"], ["--data-dir", join(dir, "data")])
    try {
      const token = /write token for group "default" is (\S+)/.exec(served.stderr())?.[1]
      expect(token).toBeDefined()
      expect(served.stderr()).toContain("jobs are stored, not dispatched")
      // It said it listens before it said it serves.
      expect(served.stderr()).toMatch(/^dispatch serve: listening; [^]*^dispatch serve: ready: /m)
      expect(await get(`${served.url}/api/v1/openapi.json`)).toBe(200)
      expect(await get(`${served.url}/api/v1/jobs`)).toBe(401)
      expect(await get(`${served.url}/api/v1/jobs`, token)).toBe(200)
      expect(await get(`${served.url}/api/v1/jobs`, "not-the-token")).toBe(401)
      // One access-log line per request, in text by default.
      expect(served.stderr()).toMatch(/ GET \/api\/v1\/jobs 401 [\d.]+ms\n/)
      expect(served.stderr()).toMatch(/ GET \/api\/v1\/jobs 200 [\d.]+ms\n/)
    } finally {
      expect(await served.stop()).toBe(ExitCode.ok)
    }
  })

  it("--log-format json writes each request's access-log line as JSON, with the request id it echoed", async () => {
    const served = await background(["serve"], ["--data-dir", join(dir, "data-json"), "--log-format", "json"])
    try {
      const answer = await fetch(`${served.url}/api/v1/jobs`, { headers: { "x-request-id": "trace-42" } })
      expect(answer.status).toBe(401)
      expect(answer.headers.get("x-request-id")).toBe("trace-42")
      const lines = served.stderr().split("\n").filter((line) => line.startsWith("{"))
      expect(lines.map((line) => JSON.parse(line))).toContainEqual(expect.objectContaining({ requestId: "trace-42", method: "GET", path: "/api/v1/jobs", status: 401 }))
    } finally {
      expect(await served.stop()).toBe(ExitCode.ok)
    }
  })

  it("--signup opens users.create; --default-backend gives queues without a backend one, stored ones at start", async () => {
    const data = join(dir, "data-default-backend")
    const runtime = { kind: "TrainingRuntime", name: "dioptra-torch" }
    const backendFile = join(dir, "backend.json")
    writeFileSync(backendFile, JSON.stringify({ config: { namespace: "ml-team", mode: "plain", runtimes: [runtime] }, runtime, image: "example/worker:1", command: ["dioptra-worker"] }))
    // Names unique to the run: with DATABASE_URL set, the services share that database with earlier runs.
    const tag = `${process.pid}-${Date.now()}`
    const user = { username: `ann-${tag}`, email: "ann@example.org", password: "pw", confirmPassword: "pw" }
    const plain = await background(["serve"], ["--data-dir", data])
    let queue: number
    try {
      const token = /write token for group "default" is (\S+)/.exec(plain.stderr())?.[1]
      // Sign-up is refused without --signup: a status the raw call shows as sent.
      expect((await client(plain.url, undefined)("POST", "/users", user)).status).toBe(403)
      const bare = await client(plain.url, token).typed((c) => c.queues.create({ payload: { name: `bare-${tag}` } }))
      expect(bare.backend).toBeUndefined()
      expect(bare.gate.reason).toContain("has no backend")
      queue = bare.id
    } finally {
      expect(await plain.stop()).toBe(ExitCode.ok)
    }
    const opened = await background(["serve"], ["--data-dir", data, "--signup", "--default-backend", backendFile])
    try {
      const token = /write token for group "default" is (\S+)/.exec(opened.stderr())?.[1]
      expect((await client(opened.url, undefined).typed((c) => c.users.create({ payload: user }))).username).toBe(user.username)
      const service = client(opened.url, token)
      expect((await service.typed((c) => c.queues.read({ params: { id: queue } }))).backend).toMatchObject({ command: ["dioptra-worker"] })
      expect((await service.typed((c) => c.queues.create({ payload: { name: `later-${tag}` } }))).backend).toMatchObject({ image: "example/worker:1" })
    } finally {
      expect(await opened.stop()).toBe(ExitCode.ok)
    }
  })

  it("hash-token makes an entry that --tokens accepts, with its access", async () => {
    const made = await dispatch(["serve", "hash-token", "--name", "alice", "--group", "team", "--read-only"])
    expect(made.code).toBe(ExitCode.ok)
    const entry = JSON.parse(made.stdout) as { name: string; group: string; access: string; tokenHash: string }
    expect(entry).toMatchObject({ name: "alice", group: "team", access: "read" })
    expect(entry.tokenHash).toMatch(/^sha256:[0-9a-f]{32,}:[0-9a-f]{64}$/)
    const token = made.stderr.trim().split("\n").at(-1) ?? ""
    expect(made.stdout).not.toContain(token)
    const tokens = join(dir, "tokens.json")
    writeFileSync(tokens, JSON.stringify([entry]))
    const served = await background(["serve"], ["--data-dir", join(dir, "data2"), "--tokens", tokens])
    try {
      expect(served.stderr()).not.toContain("write token")
      expect(await get(`${served.url}/api/v1/jobs`, token)).toBe(200)
      const write = await fetch(`${served.url}/api/v1/experiments`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "e", description: "" })
      })
      expect(write.status).toBe(403)
    } finally {
      expect(await served.stop()).toBe(ExitCode.ok)
    }
  })

  it("a second process on the same --data-dir refuses to start, naming the first; after the first is SIGKILLed, a new one starts", async () => {
    const data = join(dir, "shared")
    const first = serveOn(data)
    let third: ReturnType<typeof serveOn> | undefined
    try {
      expect(await first.ready).toMatchObject({ url: expect.stringMatching(/^http:/) })
      // The seconds a data directory takes to create or open before the URL are explained on stderr, not silent.
      expect(first.stderr()).toContain(`creating the embedded database (PGlite) in ${data}`)
      const second = serveOn(data)
      const refused = await second.ready
      expect(refused).toMatchObject({ code: ExitCode.failure })
      expect(second.stderr()).toMatch(new RegExp(`data directory ${data} is in use by dispatch serve pid ${first.child.pid} on [^]*stop that process`))
      // Killed once its data directory is made, so the next process opens an existing one.
      await first.served
      const gone = new Promise((resolve) => first.child.once("exit", resolve))
      first.child.kill("SIGKILL")
      await gone
      // The killed process left its lock; its pid no longer runs, so the lock is stale and taken over.
      third = serveOn(data)
      const url = (await third.ready).url
      expect(third.stderr()).toContain(`opening the embedded database (PGlite) in ${data}`)
      expect(await get(`${url}/api/v1/openapi.json`)).toBe(200)
    } finally {
      first.child.kill("SIGKILL")
      if (third !== undefined && third.child.exitCode === null) {
        const stopped = new Promise((resolve) => third?.child.once("exit", resolve))
        third.child.kill("SIGTERM")
        await stopped
      }
    }
  }, 300_000)

  it("SIGTERM while its data directory is created stops listening, lets the database finish, exits 0; the next start opens it", async () => {
    const data = join(dir, "stopped-early")
    const first = serveOn(data)
    const { url } = await first.ready
    expect(url).toMatch(/^http:/)
    // Sent as soon as it listens: creating a PGlite directory takes seconds, so the stop lands before it serves.
    const exited = new Promise((resolve) => first.child.once("exit", resolve))
    first.child.kill("SIGTERM")
    expect(await exited).toBe(ExitCode.ok)
    expect(first.stderr()).toContain("dispatch serve: stopped before it served (asked to stop while the database is opening)")
    expect(first.stderr()).not.toMatch(readyLine)
    const second = serveOn(data)
    try {
      const again = (await second.ready).url
      await second.served
      expect(second.stderr()).toContain(`opening the embedded database (PGlite) in ${data}`)
      expect(await get(`${again}/readyz`)).toBe(200)
    } finally {
      const stopped = new Promise((resolve) => (second.child.exitCode === null ? second.child.once("exit", resolve) : resolve(second.child.exitCode)))
      second.child.kill("SIGTERM")
      expect(await stopped).toBe(ExitCode.ok)
    }
  }, 300_000)

  it("prints its URL before its database is open; a database that does not open still ends it with the error, exit 1", async () => {
    const served = serveOn(join(dir, "unused"), "postgres://nobody@127.0.0.1:1/none")
    const listened = await served.ready
    expect(listened).toMatchObject({ url: expect.stringMatching(/^http:/) })
    const code = await new Promise((resolve) => (served.child.exitCode === null ? served.child.once("exit", resolve) : resolve(served.child.exitCode)))
    expect(code).toBe(ExitCode.failure)
    expect(served.stderr()).toContain("the job service did not start (database): database connect failed")
    expect(served.stderr()).not.toMatch(readyLine)
  })

  it("names every problem of a bad command line or tokens file, exit 2", async () => {
    const both = await dispatch(["serve", "--sim", "--kubeconfig", "k", "--port", "x", "--log-format", "xml"])
    expect(both.code).toBe(ExitCode.usage)
    expect(both.stderr).toContain("--sim, --cluster and --kubeconfig are alternatives")
    expect(both.stderr).toContain('--port "x" is not a port number')
    expect(both.stderr).toContain('--log-format "xml" is not one of text, json')
    const noSim = await dispatch(["serve", "--sim-kubeconfig-out", join(dir, "k")])
    expect(noSim.code).toBe(ExitCode.usage)
    expect(noSim.stderr).toContain("--sim-kubeconfig-out serves the embedded simulator for kubectl: it needs --sim")
    const notList = join(dir, "not-a-list.json")
    writeFileSync(notList, JSON.stringify({ name: "x" }))
    const bad = await dispatch(["serve", "--tokens", notList, "--data-dir", join(dir, "data3")])
    expect(bad.code).toBe(ExitCode.usage)
    expect(bad.stderr).toContain("must be a list of token entries")
    const missing = await dispatch(["serve", "hash-token", "--name", "bob"])
    expect(missing.code).toBe(ExitCode.usage)
    expect(missing.stderr).toContain("--group is required")
  })
})

describe("dispatch demo service", { timeout: processTestMs }, () => {
  it("submits a job over HTTP to the service, which runs it on the embedded simulator; logs and metrics come back", async () => {
    const run = await dispatch(["demo", "service"])
    expect(run.stderr).toBe("")
    expect(run.code).toBe(ExitCode.ok)
    const statuses = [...run.stdout.matchAll(/^3\. status\s+(\w+)/gm)].map((m) => m[1])
    expect(statuses[0]).toBe("queued")
    expect(statuses.at(-1)).toBe("finished")
    expect(statuses).toContain("started")
    expect(run.stdout).toMatch(/TrainJob ml-team\/dj-[0-9a-z]{26}-s1/)
    expect(run.stdout).toMatch(/^4\. logs\n(\s+\w+\s+\S+: .+\n)+5\. metrics\n(\s+\w+ = \S+ \(step \d+\)\n)+/m)
  })

  it("--exec: the job's pod is a real Python training process, and the logs and metrics the service holds are the ones it posted", async () => {
    const run = await dispatch(["demo", "service", "--exec"])
    expect(run.stderr).toBe("")
    expect(run.code).toBe(ExitCode.ok)
    expect(run.stdout).toContain("examples/train.py as a local process")
    const trainJob = /^3\. status\s+finished\s+\(TrainJob ml-team\/(\S+)\)$/m.exec(run.stdout)?.[1]
    expect(trainJob).toBeDefined()
    // The process says which pod it ran as (its HOSTNAME) and its pid; the job's epochs (5) reached it through its job document.
    const started = new RegExp(`^\\s+INFO\\s+train: training logistic regression on 640 examples on pod ${trainJob}-node-0-0 \\(pid (\\d+), rank 0\\), 5 epochs, lr 0\\.5$`, "m").exec(run.stdout)
    expect(started).not.toBeNull()
    const epochs = [...run.stdout.matchAll(/train: epoch (\d)\/5: loss ([\d.]+), test accuracy [\d.]+$/gm)]
    expect(epochs.map((m) => m[1])).toEqual(["1", "2", "3", "4", "5"])
    // Its loss really falls.
    const losses = epochs.map((m) => Number(m[2]))
    expect(losses.at(-1)).toBeLessThan(losses[0] ?? 0)
    expect(run.stdout).toMatch(/^5\. metrics\n\s+accuracy = [\d.]+ \(step 5\)\n\s+epoch_loss = [\d.]+ \(step 5\)\n\s+loss = [\d.]+ \(step 99\)\n/m)
    expect(alive(Number(started?.[1]))).toBe(false)
  })
})
