// SIGTERM to `dispatch serve` itself (the built binary, whose main runs the service under NodeRuntime.runMain) while
// it holds a job's claim: the interruption reaches the service's scope, the dispatcher stops taking work and hands its
// claims back, and the process exits 0. Shutdown.test.ts checks the same of the service in a plain node process, and
// that the close does not wait out the cluster call; this checks the command a user runs.
import { execFile, spawn, type ChildProcess } from "node:child_process"
import { writeFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { kubeconfigFor } from "@dispatch/sim"
import { afterAll, beforeAll, expect, test } from "vitest"
import { migrateTest as migrate, openPglite } from "./TestDatabase.ts"
import { jobWhen, probeNamePrefix, registerSimWorld, simWorld, submit, type SimWorld } from "./ClusterWorld.ts"
import { client, tokenEntries, tokens } from "./Fixtures.ts"

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url))
const cliDir = join(repoRoot, "packages", "cli")
// A hang detector, not a speed target: the exit is prompt on any machine; this only ends a test that hangs.
const exitBoundMs = 60_000
const instance = "sigterm-cli"

let dir = ""
let world: SimWorld | undefined
let child: ChildProcess | undefined
let reachOwnerPatch: () => void = () => undefined
const ownerPatch = new Promise<void>((resolve) => (reachOwnerPatch = resolve))

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "dispatch-serve-sigterm-"))
  // Every owner patch of a job's runtime copy goes unanswered: the Start that sent it waits on it, holding its claim.
  world = await simWorld({}, (request) => {
    if (request.verb !== "patch" || request.resource !== "trainingruntimes" || (request.name ?? "").startsWith(probeNamePrefix)) return undefined
    reachOwnerPatch()
    return { kind: "unanswered" }
  })
  // The binary runs what was built: build the command line and what it loads from the current sources.
  await new Promise<void>((resolve, reject) =>
    execFile("npx", ["tsc", "-b", cliDir], { cwd: repoRoot, timeout: 600_000 }, (error, stdout) => (error === null ? resolve() : reject(new Error(`packages/cli did not build: ${stdout}`))))
  )
}, 600_000)

afterAll(async () => {
  child?.kill("SIGKILL")
  await world?.close()
  await rm(dir, { recursive: true, force: true })
})

/** `dispatch serve` on PGlite in `dataDir`, dispatching to the kubeconfig's cluster; resolves once it serves. */
const dispatchServe = (dataDir: string, kubeconfig: string, tokensFile: string) =>
  new Promise<{ readonly child: ChildProcess; readonly url: string; readonly stderr: () => string; readonly exited: Promise<{ readonly code: number | null; readonly signal: string | null }> }>(
    (resolve, reject) => {
      // The settings are given by flag; none of the runner's own (DATABASE_URL above all) may reach the service.
      const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== "DATABASE_URL" && !name.startsWith("DISPATCH_")))
      const started = spawn(
        process.execPath,
        [join(cliDir, "bin", "dispatch.js"), "serve", "--port", "0", "--data-dir", dataDir, "--kubeconfig", kubeconfig, "--tokens", tokensFile, "--instance", instance],
        { env: { ...env, NO_COLOR: "1" }, stdio: ["ignore", "pipe", "pipe"] }
      )
      let out = ""
      let err = ""
      const exited = new Promise<{ code: number | null; signal: string | null }>((done) => started.on("exit", (code, signal) => done({ code, signal })))
      const served = () => {
        const line = out.split("\n").find((l) => l.startsWith("http://"))
        if (line !== undefined && err.includes("dispatch serve: ready")) resolve({ child: started, url: line.trim().replace(/\/api\/v1$/, ""), stderr: () => err, exited })
      }
      started.stdout?.on("data", (chunk: Buffer) => {
        out += chunk.toString()
        served()
      })
      started.stderr?.on("data", (chunk: Buffer) => {
        err += chunk.toString()
        served()
      })
      void exited.then(({ code }) => reject(new Error(`dispatch serve exited (${code}) before it served: ${err}`)))
    }
  )

test("SIGTERM to dispatch serve while it holds a job's claim: it hands the claim back and exits 0", async () => {
  if (world === undefined) throw new Error("no world")
  const dataDir = join(dir, "data")
  const kubeconfig = join(dir, "kubeconfig")
  const tokensFile = join(dir, "tokens.json")
  writeFileSync(kubeconfig, kubeconfigFor(world.server))
  writeFileSync(tokensFile, JSON.stringify(tokenEntries))
  const service = await dispatchServe(dataDir, kubeconfig, tokensFile)
  child = service.child
  const alice = client(service.url, tokens.alice)
  const w = await registerSimWorld(alice, "cli-sigterm")
  const job = await submit(alice, w)
  await ownerPatch
  // The job's Start waits on the unanswered patch: its claim is held by this process.
  expect((await jobWhen(alice, job.id, () => true)).dispatch.state).toBe("starting")

  child.kill("SIGTERM")
  const exit = await Promise.race([service.exited, new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), exitBoundMs).unref())])
  expect(exit, service.stderr()).toEqual({ code: 0, signal: null })
  child = undefined

  // What the database shows: the claim is handed back (its lease ended), not left to run out.
  const db = await openPglite(dataDir)
  try {
    await migrate(db)
    expect(await db.query(`select id from jobs where claimed_by = $1 and claim_until > 0`, [instance])).toEqual([])
    expect(await db.query(`select id from jobs where claimed_by = $1 and claim_until = 0`, [instance])).toEqual([{ id: job.id }])
  } finally {
    await db.close()
  }
}, 240_000)
