// `dispatch serve --sim` keeps its simulated cluster in the data directory: killed with SIGKILL while its
// jobs run and started again, it resumes them on the same TrainJobs and they finish. kubectl reaches the
// embedded cluster through --sim-kubeconfig-out.
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { ExitCode } from "../../src/ExitCode.ts"
import { background, dispatch, kubectl, processTestMs, type Served } from "../DispatchBinary.ts"
import { useServeFixture } from "./ServeFixture.ts"
import { allJobs, exampleExperiment, serviceAt } from "../ServiceCalls.ts"

// DISPATCH_RESTART_JOBS=150 runs it at the scale where every job used to be lost.
const jobs = Number(process.env["DISPATCH_RESTART_JOBS"] ?? 12)
const { dir, token, tokensFile, started } = useServeFixture("dispatch-serve-sim-")
const kubeconfig = join(dir, "sim.kubeconfig")
const dataDir = join(dir, "data")

const at = serviceAt(token)

const serveSim = async (): Promise<Served> => {
  // PGlite in the data directory, whatever DATABASE_URL the test run has; one instance name across the restart.
  const served = await background(["serve"], ["--sim", "--data-dir", dataDir, "--tokens", tokensFile, "--instance", "restarting", "--sim-kubeconfig-out", kubeconfig], undefined, { DATABASE_URL: "" })
  started.push(served)
  return served
}

// Polls until `done` holds for the jobs; the bound is for a stuck service, not a slow machine.
const until = async (base: string, done: (jobs: Array<any>) => boolean): Promise<Array<any>> => {
  const deadline = Date.now() + 420_000
  for (;;) {
    const listed = await allJobs(at(base))
    if (done(listed) || Date.now() > deadline) return listed
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const trainJobUids = async (): Promise<Map<string, string>> => {
  const listed = await kubectl(["--kubeconfig", kubeconfig, "get", "trainjobs", "-o", "jsonpath={range .items[*]}{.metadata.name} {.metadata.uid}{\"\\n\"}{end}"])
  expect(listed.stderr).toBe("")
  return new Map(listed.stdout.trim().split("\n").filter(Boolean).map((line) => line.split(" ") as [string, string]))
}

describe("dispatch serve --sim with a data directory", () => {
  it(`resumes ${jobs} running jobs after SIGKILL: same TrainJobs, all finished, none lost`, async () => {
    const first = await serveSim()
    const { experiment, job } = await exampleExperiment(at(first.url))
    for (let i = 0; i < jobs; i++) expect((await at(first.url).typed((c) => c.jobs.create({ params: { id: experiment }, payload: job as never }))).status).toBe("queued")

    // Killed once some jobs run on the cluster and none has finished (a run takes 5 simulated seconds).
    const running = await until(first.url, (listed) => listed.some((j) => j.status === "started"))
    expect(running.filter((j) => j.status === "started").length).toBeGreaterThan(0)
    const before = await trainJobUids()
    expect(before.size).toBeGreaterThan(0)
    first.child.kill("SIGKILL")
    await new Promise((resolve) => first.child.once("exit", resolve))
    started.splice(started.indexOf(first), 1)

    const second = await serveSim()
    const after = await trainJobUids()
    // Every TrainJob the killed process had is still there, the same object (its uid).
    for (const [name, uid] of before) expect(after.get(name)).toBe(uid)
    const listed = await until(second.url, (all) => all.length === jobs && all.every((j) => j.status === "finished" || j.status === "failed"))
    expect(listed.filter((j) => j.status !== "finished")).toEqual([])
    expect(listed).toHaveLength(jobs)
    expect(second.stderr()).not.toContain("no longer exists")
    expect(second.stderr()).toMatch(/the embedded simulator's state is in .*simulator: resumed at /)
    const names = await kubectl(["--kubeconfig", kubeconfig, "get", "trainjobs", "-o", "name"])
    expect(names.stdout.trim().split("\n")).toHaveLength(jobs)
    // One service per simulator state: a second on the same directory is refused, naming the first.
    const other = await dispatch(["serve", "--sim", "--port", "0", "--data-dir", dataDir, "--tokens", tokensFile])
    expect(other.code).toBe(ExitCode.failure)
    expect(other.stderr).toContain(`${join(dataDir, "simulator")} is in use by dispatch serve pid ${second.child.pid}`)
  }, processTestMs)
})
