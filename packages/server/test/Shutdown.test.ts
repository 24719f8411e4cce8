// SIGTERM while jobs are being dispatched: the service, in a process of its own, stops taking work, abandons the
// cluster call it is waiting on, hands back its claims and exits 0, long before that call's own bound; the next
// service takes the job over at once instead of after the claim's lease.
import { execFile, spawn, type ChildProcess } from "node:child_process"
import { writeFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { kubeconfigFor } from "@dispatch/sim"
import { afterAll, beforeAll, expect, test } from "vitest"
import { migrateTest as migrate, openPglite } from "./TestDatabase.ts"
import { dispatchingService, jobWhen, probeNamePrefix, registerSimWorld, simWorld, submit, type DispatchingService, type SimWorld } from "./ClusterWorld.ts"
import { client, tokenEntries, tokens } from "./Fixtures.ts"

const serverDir = fileURLToPath(new URL("..", import.meta.url))

// Far longer than the test waits for the exit: a close that waited for the call it abandoned would be caught.
const callMs = 120_000
// A hang detector, not a speed target: the exit is prompt on any machine; this only ends a test that hangs.
const exitBoundMs = 30_000
const instance = "sigterm-svc"

let dir = ""
let world: SimWorld | undefined
let child: ChildProcess | undefined
let next: DispatchingService | undefined
let heldBack = 0
let reachOwnerPatch: () => void = () => undefined
const ownerPatch = new Promise<void>((resolve) => (reachOwnerPatch = resolve))

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "dispatch-sigterm-"))
  // Every owner patch of a job's runtime copy goes unanswered: the Start that sent it waits on it for the call's
  // bound, holding its job's claim.
  world = await simWorld({}, (request) => {
    if (request.verb !== "patch" || request.resource !== "trainingruntimes" || (request.name ?? "").startsWith(probeNamePrefix)) return undefined
    if (heldBack < 0) return undefined
    heldBack++
    reachOwnerPatch()
    return { kind: "unanswered" }
  })
  await new Promise<void>((resolve, reject) =>
    execFile("npx", ["tsc", "-b", serverDir], { cwd: serverDir, timeout: 600_000 }, (error, stdout) => (error === null ? resolve() : reject(new Error(`packages/server did not build: ${stdout}`))))
  )
}, 600_000)

afterAll(async () => {
  child?.kill("SIGKILL")
  await next?.server.close()
  await world?.close()
  await rm(dir, { recursive: true, force: true })
})

const serveInChild = (dataDir: string, kubeconfig: string) =>
  new Promise<{ readonly child: ChildProcess; readonly url: string; readonly exited: Promise<{ readonly code: number | null; readonly signal: string | null }> }>((resolve, reject) => {
    const started = spawn(process.execPath, [join(serverDir, "test", "ServiceProcess.mjs")], {
      env: {
        ...process.env,
        DISPATCH_TEST_TOKENS: JSON.stringify(tokenEntries),
        DISPATCH_TEST_DATA_DIR: dataDir,
        DISPATCH_TEST_KUBECONFIG: kubeconfig,
        DISPATCH_TEST_INSTANCE: instance,
        DISPATCH_TEST_CALL_MS: String(callMs)
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stderr = ""
    started.stderr?.on("data", (chunk: Buffer) => void (stderr += chunk.toString()))
    const exited = new Promise<{ code: number | null; signal: string | null }>((done) => started.on("exit", (code, signal) => done({ code, signal })))
    let out = ""
    started.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const line = out.split("\n").find((l) => l.startsWith("{"))
      if (line !== undefined) resolve({ child: started, url: (JSON.parse(line) as { url: string }).url, exited })
    })
    void exited.then(({ code }) => reject(new Error(`the service process exited (${code}) before it served: ${stderr}`)))
  })

test("on SIGTERM mid-dispatch the process hands back its claims and exits 0 without waiting out the cluster call", async () => {
  if (world === undefined) throw new Error("no world")
  const dataDir = join(dir, "data")
  const kubeconfig = join(dir, "kubeconfig")
  writeFileSync(kubeconfig, kubeconfigFor(world.server))
  const service = await serveInChild(dataDir, kubeconfig)
  child = service.child
  const alice = client(service.url, tokens.alice)
  const w = await registerSimWorld(alice, "sigterm")
  const jobs = [await submit(alice, w), await submit(alice, w), await submit(alice, w)]
  await ownerPatch
  // Each job is in Start (claimed) or still waiting for a claim; at least one is being started, its claim held.
  const states = await Promise.all(jobs.map(async (job) => (await jobWhen(alice, job.id, () => true)).dispatch.state))
  expect(states.filter((s) => s === "claimed" || s === "starting" || s === "owned").length).toBeGreaterThanOrEqual(1)

  const asked = performance.now()
  child.kill("SIGTERM")
  const exit = await Promise.race([
    service.exited,
    new Promise<"hung">((resolve) => setTimeout(() => resolve("hung"), exitBoundMs).unref())
  ])
  expect(exit).toEqual({ code: 0, signal: null })
  // The abandoned call's own bound had not passed: the close did not wait for it.
  expect(performance.now() - asked).toBeLessThan(callMs)
  child = undefined

  // What the database shows: no claim of the stopped instance still runs its lease.
  const db = await openPglite(dataDir)
  try {
    await migrate(db)
    const held = await db.query<{ id: number; dispatchState: string; claimUntil: number }>(
      `select id, dispatch_state as "dispatchState", claim_until as "claimUntil" from jobs where claimed_by = $1 and claim_until > 0`,
      [instance]
    )
    expect(held).toEqual([])
    const handedBack = await db.query<{ id: number }>(`select id from jobs where claimed_by = $1 and claim_until = 0`, [instance])
    expect(handedBack.length).toBeGreaterThanOrEqual(1)
  } finally {
    await db.close()
  }

  // Another instance (its lease on claims is ten minutes) takes every job over at once and finishes it.
  heldBack = -1
  next = await dispatchingService(world, { dataDir, dispatch: { instance: "next-svc" } })
  for (const job of jobs) expect((await jobWhen(next.alice, job.id, (j) => j.status === "finished", 90_000)).dispatch.state).toBe("done")
}, 240_000)
