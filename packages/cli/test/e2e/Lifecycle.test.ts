// The built binary against `dispatch sim serve`: one job's whole life through find, open, hold,
// release and stop, what the real kubectl reads of what `dispatch start` created, the probe's exit
// codes, capabilities, and the demo.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ExitCode } from "../../src/ExitCode.ts"
import { type Served, dispatch, ensureBuilt, kubectl, processTestMs, serve } from "../DispatchBinary.ts"

const job = "01JD8X2Q4M7N9P3R5S6T8V0W1Y"
const name = "dj-01jd8x2q4m7n9p3r5s6t8v0w1y-s17"
const jobArgs = ["--job", job, "--submission", "17"]

let dir: string
const servers: Array<Served> = []
const served = async (kubeconfig: string, extra: ReadonlyArray<string> = []): Promise<string> => {
  const path = join(dir, kubeconfig)
  servers.push(await serve(["--kubeconfig-out", path, "--runtime", "examples/runtime.yaml", ...extra]))
  return path
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "dispatch-life-"))
  await ensureBuilt()
}, processTestMs)
afterAll(async () => {
  expect(await Promise.all(servers.map((s) => s.stop()))).toEqual(servers.map(() => 0))
  rmSync(dir, { recursive: true, force: true })
}, processTestMs)

describe("a job's life on `dispatch sim serve`", { timeout: processTestMs }, () => {
  it("starts, is read by kubectl, opens, holds, releases and stops, each step as find reports it", async () => {
    // The run outlasts the steps below however slowly each command starts: it must still be running
    // when it is held, not finished (the default run is 5 s).
    const kubeconfig = await served("life.kubeconfig", ["--run-time", "3600"])
    const k = ["--kubeconfig", kubeconfig]
    const state = async () => {
      const run = await dispatch(["find", ...k, ...jobArgs, "-o", "json"])
      expect(run.code).toBe(ExitCode.ok)
      return JSON.parse(run.stdout) as { state: string; reason?: string; ref: { namespace: string; name: string; uid?: string } }
    }

    const started = await dispatch(["start", ...k, "--request", "examples/request.json", "-o", "json"])
    expect(started.code).toBe(ExitCode.ok)
    const uid = (JSON.parse(started.stdout) as { uid: string }).uid

    // The real kubectl reads what Start created: a suspended TrainJob, and the copy it owns.
    const [table, trainJob, copy] = await Promise.all([
      kubectl(["--kubeconfig", kubeconfig, "get", "trainjobs", "-n", "ml-team"]),
      kubectl(["--kubeconfig", kubeconfig, "get", "trainjob", name, "-n", "ml-team", "-o", "json"]),
      kubectl(["--kubeconfig", kubeconfig, "get", "trainingruntime", name, "-n", "ml-team", "-o", "json"])
    ])
    expect(table.code).toBe(0)
    expect(table.stdout).toMatch(new RegExp(`^NAME\\s+STATE\\s+AGE\\n${name}\\s+Suspended\\s`))
    const job_ = JSON.parse(trainJob.stdout) as { metadata: { uid: string; labels: Record<string, string> }; spec: { suspend: boolean; runtimeRef: { name: string } } }
    expect(job_.metadata.uid).toBe(uid)
    expect(job_.spec).toMatchObject({ suspend: true, runtimeRef: { name } })
    expect(job_.metadata.labels["dispatch.phpboyscout.uk/job-id"]).toBe(job)
    const copy_ = JSON.parse(copy.stdout) as { metadata: { ownerReferences: Array<{ kind: string; uid: string }> } }
    expect(copy_.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: "TrainJob", name, uid, controller: true })])

    expect(await state()).toMatchObject({ state: "Held", ref: { uid } })
    const opened = await dispatch(["open", ...k, ...jobArgs])
    expect(opened).toMatchObject({ code: ExitCode.ok, stdout: `opened ml-team/${name}\n` })
    expect(["Queued", "Running"]).toContain((await state()).state)
    const held = await dispatch(["hold", ...k, ...jobArgs, "-o", "json"])
    expect(held.code).toBe(ExitCode.ok)
    expect(JSON.parse(held.stdout)).toEqual({ namespace: "ml-team", name, uid })
    expect(await state()).toMatchObject({ state: "Held" })
    expect((await dispatch(["release", ...k, ...jobArgs])).stdout).toBe(`released ml-team/${name}\n`)
    expect((await state()).state).not.toBe("Held")

    // A bound, not a duration: the stop returns as soon as everything is gone.
    const stopped = await dispatch(["stop", ...k, ...jobArgs, "--wait", "120", "-o", "json"])
    expect(stopped.code).toBe(ExitCode.ok)
    expect(JSON.parse(stopped.stdout)).toEqual({ ref: { namespace: "ml-team", name, uid }, remaining: [], gone: true })
    expect(await state()).toEqual({ state: "Absent", ref: { namespace: "ml-team", name } })
    const [again, openGone] = await Promise.all([dispatch(["stop", ...k, ...jobArgs]), dispatch(["open", ...k, ...jobArgs, "-o", "json"])])
    expect(again).toMatchObject({ code: ExitCode.ok, stdout: `stopped ml-team/${name}: nothing of it remains\n` })
    expect(openGone.code).toBe(ExitCode.ErrRejected)
    expect(JSON.parse(openGone.stdout)).toMatchObject({ error: "ErrRejected", reasons: [expect.stringContaining("no TrainJob")] })
  })
})

describe("dispatch probe and capabilities", { timeout: processTestMs }, () => {
  it("exits by the first gate not proven: 0 open, 6 closed, 7 read-only, 4 observe-only", async () => {
    const kueueSlow = join(dir, "kueue-short.json")
    writeFileSync(kueueSlow, JSON.stringify({ namespace: "ml-team", mode: "kueue", runtimes: [{ kind: "TrainingRuntime", name: "dispatch-torch" }], kueue: { queue: "q", admissionCheck: "c" }, timeouts: { workload: "1s" } }))
    const [open, closed, readOnly, plainServer] = await Promise.all([
      served("probe-open.kubeconfig"),
      served("probe-closed.kubeconfig", ["--fault", "get:trainingruntimes=refuse"]),
      served("probe-ro.kubeconfig", ["--read-only"]),
      served("probe-nokueue.kubeconfig")
    ])
    const [zero, six, seven, four] = await Promise.all([
      dispatch(["probe", "--kubeconfig", open, "-o", "json"]),
      dispatch(["probe", "--kubeconfig", closed]),
      dispatch(["probe", "--kubeconfig", readOnly, "-o", "json"]),
      // Kueue mode on a cluster without Kueue: no Workload ever appears.
      dispatch(["probe", "--kubeconfig", plainServer, "--config", kueueSlow])
    ])
    expect(zero.code, zero.stderr).toBe(ExitCode.ok)
    expect(JSON.parse(zero.stdout)).toEqual({
      gate: { state: "open" },
      reach: { proven: true, reasons: [] },
      write: { proven: true, reasons: [] },
      launch: { proven: true, reasons: [] },
      leftovers: []
    })
    expect(six.code, six.stderr).toBe(ExitCode.ErrUnreachable)
    expect(six.stdout).toMatch(/^backend closed: /)
    expect(six.stderr).toContain("dispatch probe: ErrUnreachable")
    expect(seven.code, seven.stderr).toBe(ExitCode.ErrReadOnly)
    // One JSON value on stdout: the report, which says which gate failed.
    expect(JSON.parse(seven.stdout)).toMatchObject({ gate: { state: "read-only" }, reach: { proven: true }, write: { proven: false } })
    expect(four.code, four.stderr).toBe(ExitCode.ErrUnsupported)
    expect(four.stdout).toContain("backend observe-only")
  })

  it("says which runtime would run a spec (0), or why none (4), creating nothing", async () => {
    const elsewhere = join(dir, "elsewhere.json")
    writeFileSync(elsewhere, JSON.stringify({ namespace: "ml-team", mode: "plain", runtimes: [{ kind: "ClusterTrainingRuntime", name: "other" }] }))
    const [yes, no] = await Promise.all([
      dispatch(["capabilities", "--sim", "--request", "examples/request.json", "-o", "json"]),
      dispatch(["capabilities", "--sim", "--request", "examples/request.json", "--config", elsewhere])
    ])
    expect(yes.code).toBe(ExitCode.ok)
    expect(JSON.parse(yes.stdout)).toEqual({ runtime: { kind: "TrainingRuntime", name: "dispatch-torch" }, nativeRequeue: expect.any(Boolean), nativeRestart: expect.any(Boolean) })
    expect(no.code).toBe(ExitCode.ErrUnsupported)
    expect(no.stderr).toContain("TrainingRuntime/dispatch-torch")
  })
})

describe("dispatch demo", { timeout: processTestMs }, () => {
  it("renders, probes, starts, opens and follows the example to Succeeded, in plain and Kueue mode", async () => {
    const [plain, kueue, bad] = await Promise.all([
      dispatch(["demo"]),
      dispatch(["demo", "--config", "examples/config-kueue.json", "--speed", "50"]),
      dispatch(["demo", "--speed", "0"])
    ])
    for (const run of [plain, kueue]) {
      expect(run.code).toBe(ExitCode.ok)
      const steps = run.stdout.split("\n").filter((l) => /^\d\. /.test(l)).map((l) => l.slice(0, 9).trim())
      // Each step once, in order, with the follow step's progress lines before its final one.
      expect([...new Set(steps)]).toEqual(["1. render", "2. probe", "3. start", "4. open", "5. follow"])
      expect(run.stdout).toMatch(/5\. follow {2}Succeeded \(AllJobsCompleted\) after \d+ s of simulated time/)
      expect(run.stdout).toContain(`TrainJob ml-team/${name}`)
      expect(run.stdout).toMatch(/faster than real time/)
    }
    expect(plain.stdout).toContain("Its clock runs 20x faster")
    expect(kueue.stdout).toMatch(/Workload ml-team\/trainjob-dj-/)
    // The closing hint renders what this demo ran: in Kueue mode, with its config.
    expect(kueue.stdout).toContain("See them in full: dispatch render --request examples/request.json --runtime examples/runtime.yaml --config examples/config-kueue.json")
    expect(plain.stdout).toMatch(/See them in full: dispatch render --request examples\/request.json --runtime examples\/runtime.yaml\n/)
    expect(bad.code).toBe(ExitCode.usage)
    expect(bad.stderr).toContain('--speed "0" is not a whole number from 1 to 1000')
  })
})



