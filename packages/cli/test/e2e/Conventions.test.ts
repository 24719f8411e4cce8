// kubectl's conventions, through the built binary against `dispatch sim serve`: -o in every spelling,
// flags before the command, `-` for stdin, KUBECONFIG, --context, -n, hints that paste, the TrainJob
// name, --timeout, progress and colour on a terminal (script) and off one, and the list, wait, runtimes
// and new-id commands.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { isJobId } from "@dispatch/render"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parse } from "yaml"
import { ExitCode } from "../../src/ExitCode.ts"
import { type Served, dispatch, dispatchOnTerminal, dispatchWith, ensureBuilt, example, processTestMs, serve } from "../DispatchBinary.ts"

const name = "dj-01jd8x2q4m7n9p3r5s6t8v0w1y-s17"
let dir: string
let plain: Served
let dropping: Served
let kubeconfig: string
let dropKubeconfig: string
let closedServer: string

const request = JSON.parse(readFileSync(example("request.json"), "utf8")) as Record<string, unknown>

const suiteStartMs = Date.now()

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "dispatch-conventions-"))
  await ensureBuilt()
  kubeconfig = join(dir, "sim.kubeconfig")
  dropKubeconfig = join(dir, "drop.kubeconfig")
  const runtime = ["--runtime", "examples/runtime.yaml", "--config", "examples/config.json"]
  plain = await serve(["--kubeconfig-out", kubeconfig, ...runtime, "--run-time", "2"])
  dropping = await serve(["--kubeconfig-out", dropKubeconfig, ...runtime, "--fault", "create:trainjobs=drop"])
  const closed = createServer()
  await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve))
  closedServer = `http://127.0.0.1:${(closed.address() as { port: number }).port}`
  await new Promise((resolve) => closed.close(resolve))
  // A second context whose server nothing listens at.
  const text = readFileSync(kubeconfig, "utf8")
  const config = parse(text) as { clusters: Array<Record<string, unknown>>; contexts: Array<{ name: string; context: Record<string, unknown> }>; users: Array<{ name: string }> }
  config.clusters.push({ name: "closed", cluster: { server: closedServer } })
  config.contexts.push({ name: "closed", context: { cluster: "closed", user: config.users[0]?.name ?? "" } })
  writeFileSync(join(dir, "two-contexts.kubeconfig"), JSON.stringify(config))
}, processTestMs)

afterAll(async () => {
  await Promise.all([plain?.stop(), dropping?.stop()])
  rmSync(dir, { recursive: true, force: true })
})

const k = () => ["--kubeconfig", kubeconfig, "--config", "examples/config.json"]

describe("kubectl's conventions", { timeout: processTestMs }, () => {
  it("reads -o in every spelling, flags before the command, and `-` as standard input", async () => {
    const started = await dispatchWith(["-ojson", ...k(), "start", "--request", "-"], { input: JSON.stringify(request), env: { NO_COLOR: "1" } })
    expect(started.code).toBe(ExitCode.ok)
    expect(JSON.parse(started.stdout)).toMatchObject({ name, created: true, gateClosed: true })
    const spellings = [["-o", "json"], ["-ojson"], ["-o=json"], ["--output", "json"], ["--output=json"]]
    const runs = await Promise.all(spellings.map((s) => dispatch(["find", name, ...k(), ...s])))
    for (const run of runs) expect(JSON.parse(run.stdout)).toMatchObject({ state: "Held", ref: { name } })
    const yaml = await dispatch(["find", name, ...k(), "-o", "yaml"])
    expect(parse(yaml.stdout)).toMatchObject({ state: "Held", ref: { name } })
  })

  it("addresses a job by its TrainJob name or by --job and --submission alike, and a hint pastes as it is", async () => {
    const started = await dispatch(["start", ...k(), "--request", "examples/request.json"])
    const hint = /^open it with: dispatch (.*)$/m.exec(started.stdout)?.[1] ?? ""
    expect(hint).toBe(`open ${name} --kubeconfig ${kubeconfig} --config examples/config.json`)
    const [byName, byKey] = await Promise.all([
      dispatch(["find", name, ...k(), "-o", "json"]),
      dispatch(["find", "--job", "01JD8X2Q4M7N9P3R5S6T8V0W1Y", "--submission", "17", ...k(), "-o", "json"])
    ])
    expect(byName.stdout).toBe(byKey.stdout)
    const bad = await dispatch(["find", "dj-nope", ...k()])
    expect(bad.code).toBe(ExitCode.usage)
    expect(bad.stderr).toContain('"dj-nope" is not the name of a TrainJob dispatch makes')
  })

  it("uses KUBECONFIG, --context and -n as kubectl does, and names the server it could not reach", async () => {
    const [fromEnv, otherContext, noContext, otherNamespace] = await Promise.all([
      dispatchWith(["find", name, "--config", "examples/config.json", "-o", "json"], { env: { KUBECONFIG: kubeconfig, NO_COLOR: "1" } }),
      dispatch(["find", name, "--kubeconfig", join(dir, "two-contexts.kubeconfig"), "--context", "closed", "--config", "examples/config.json", "-o", "json"]),
      dispatch(["find", name, "--kubeconfig", kubeconfig, "--context", "nope", "--config", "examples/config.json"]),
      dispatch(["find", name, ...k(), "-n", "elsewhere", "-o", "json"])
    ])
    expect(JSON.parse(fromEnv.stdout)).toMatchObject({ ref: { name } })
    expect(otherContext.code).toBe(ExitCode.ErrUnreachable)
    expect(JSON.parse(otherContext.stdout)).toMatchObject({ error: "ErrUnreachable", server: closedServer })
    expect(otherContext.stderr).toContain(`(server ${closedServer})`)
    expect(noContext.code).toBe(ExitCode.usage)
    expect(noContext.stderr).toContain('--context "nope": no such context')
    expect(JSON.parse(otherNamespace.stdout)).toMatchObject({ state: "Absent", ref: { namespace: "elsewhere", name } })
  })

  it("says a kubeconfig file is missing, for serve too, rather than calling it unreachable", async () => {
    const [serveRun, findRun] = await Promise.all([dispatch(["serve", "--kubeconfig", join(dir, "nope"), "--port", "0"]), dispatch(["find", name, "--kubeconfig", join(dir, "nope")])])
    for (const run of [serveRun, findRun]) {
      expect(run.code).toBe(ExitCode.usage)
      expect(run.stderr).toContain(`cannot read kubeconfig ${join(dir, "nope")}: ENOENT`)
      expect(run.stderr).not.toContain("Unreachable")
    }
  })

  it("gives up at --timeout (a write's outcome is then unknown: 8) and shows progress past a second, in a pipe and on a terminal", async () => {
    const args = ["start", "--kubeconfig", dropKubeconfig, "--config", "examples/config.json", "--request", "examples/request.json", "--timeout", "3s"]
    const [piped, terminal, noColour] = await Promise.all([dispatch(args), dispatchOnTerminal(args), dispatchOnTerminal(args, { NO_COLOR: "1" })])
    expect(piped.code).toBe(ExitCode.ErrOutcomeUnknown)
    expect(piped.stderr).toContain("no answer within --timeout 3 s")
    // In a pipe: whole lines, no escape codes.
    expect(piped.stderr).toMatch(/^dispatch start: waiting for the cluster \(1 s\)$/m)
    expect(piped.stderr).not.toContain("\x1b[")
    // On a terminal: the line redrawn in place, and the error's kind in red; never with NO_COLOR.
    expect(terminal.code).toBe(ExitCode.ErrOutcomeUnknown)
    expect(terminal.stdout).toContain("\r\x1b[Kdispatch start: waiting for the cluster (1 s)")
    expect(terminal.stdout).toContain("\x1b[31mErrOutcomeUnknown\x1b[39m")
    expect(noColour.stdout).toContain("\r\x1b[K")
    expect(noColour.stdout).not.toContain("\x1b[31m")
  })
})

describe("colour", { timeout: processTestMs }, () => {
  it("colours help on a terminal, never with NO_COLOR, never in a pipe", async () => {
    const [terminal, noColour, piped] = await Promise.all([
      dispatchOnTerminal(["render", "--help"]),
      dispatchOnTerminal(["render", "--help"], { NO_COLOR: "1" }),
      dispatchWith(["render", "--help"])
    ])
    expect(terminal.stdout).toContain("\x1b[1mDESCRIPTION")
    for (const run of [noColour, piped]) {
      expect(run.stdout).toContain("DESCRIPTION")
      expect(run.stdout).not.toContain("\x1b[")
    }
  })
})

describe("dispatch list, wait, runtimes and new-id", { timeout: processTestMs }, () => {
  it("lists every job of the namespace, in every format, narrowed by -l", async () => {
    const other = join(dir, "other-request.json")
    writeFileSync(other, JSON.stringify({ ...request, submission: 18 }))
    await Promise.all([dispatch(["start", ...k(), "--request", "examples/request.json"]), dispatch(["start", ...k(), "--request", other])])
    const [text, wide, names, json, narrowed, none] = await Promise.all([
      dispatch(["list", ...k()]),
      dispatch(["list", ...k(), "-o", "wide"]),
      dispatch(["list", ...k(), "-oname"]),
      dispatch(["list", ...k(), "-o", "json"]),
      dispatch(["list", ...k(), "-l", "dispatch.phpboyscout.uk/submission=18", "-o", "name"]),
      dispatch(["list", ...k(), "-n", "empty"])
    ])
    expect(text.code).toBe(ExitCode.ok)
    expect(text.stdout.split("\n")[0]).toMatch(/^JOB\s+SUBMISSION\s+STATE\s+AGE\s+TRAINJOB$/)
    expect(text.stdout).toMatch(new RegExp(`01JD8X2Q4M7N9P3R5S6T8V0W1Y\\s+17\\s+\\w+\\s+\\S+\\s+${name}`))
    // AGE is against the cluster's clock: no job is older than this suite's servers.
    const seconds = (age: string): number =>
      /^(\d+[smhd])+$/.test(age) ? [...age.matchAll(/(\d+)([smhd])/g)].reduce((sum, [, n, u]) => sum + Number(n) * ({ s: 1, m: 60, h: 3600, d: 86_400 }[u ?? ""] ?? Number.NaN), 0) : Number.NaN
    const ages = text.stdout.trim().split("\n").slice(1).map((line) => seconds(line.split(/\s+/)[3] ?? ""))
    expect(ages).toHaveLength(2)
    for (const age of ages) expect(age).toBeLessThanOrEqual((Date.now() - suiteStartMs) / 1000 + 1)
    expect(wide.stdout.split("\n")[0]).toContain("NAMESPACE")
    expect(names.stdout.trim().split("\n").sort()).toEqual([`trainjob/${name}`, "trainjob/dj-01jd8x2q4m7n9p3r5s6t8v0w1y-s18"])
    expect((JSON.parse(json.stdout) as Array<{ submission: number }>).map((j) => j.submission).sort()).toEqual([17, 18])
    expect(narrowed.stdout.trim()).toBe("trainjob/dj-01jd8x2q4m7n9p3r5s6t8v0w1y-s18")
    expect(none).toMatchObject({ code: ExitCode.ok, stdout: "" })
    expect(none.stderr).toContain("No jobs found in namespace empty.")
  })

  it("waits: 0 on reaching a state, 1 on --timeout, the error's own code on a typed error", async () => {
    const s19 = join(dir, "s19-request.json")
    writeFileSync(s19, JSON.stringify({ ...request, submission: 19 }))
    await dispatch(["start", ...k(), "--request", s19])
    const job = "dj-01jd8x2q4m7n9p3r5s6t8v0w1y-s19"
    const held = await dispatch(["wait", job, ...k(), "--for", "Running", "--timeout", "2s"])
    expect(held.code).toBe(ExitCode.failure)
    expect(held.stderr).toContain(`${job} did not reach Running within 2 s: it is Held`)
    // A watch running while the job is opened prints its change.
    const watching = dispatch(["list", ...k(), "-w", "--timeout", "20s"])
    await dispatch(["open", job, ...k()])
    const [done, unreachable] = await Promise.all([
      dispatch(["wait", job, ...k(), "--for", "Succeeded,Failed", "--timeout", "120s"]),
      dispatch(["wait", job, "--kubeconfig", join(dir, "two-contexts.kubeconfig"), "--context", "closed", "--config", "examples/config.json", "--for", "Running"])
    ])
    expect(done.code).toBe(ExitCode.ok)
    expect(done.stdout).toContain(`${job}: Succeeded`)
    expect(unreachable.code).toBe(ExitCode.ErrUnreachable)
    const watched = await watching
    expect(watched.code).toBe(ExitCode.ok)
    expect(watched.stdout).toMatch(new RegExp(`\\n01JD8X2Q4M7N9P3R5S6T8V0W1Y\\s+19\\s+(Running|Succeeded)`))
  })

  it("says which runtimes Start can use, with every reason one cannot be", async () => {
    // A runtime of the namespace that breaks the rules, next to the configured one.
    const broken = await fetch(`${plain.url}/apis/trainer.kubeflow.org/v1alpha1/namespaces/ml-team/trainingruntimes`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainingRuntime", metadata: { name: "broken", namespace: "ml-team" }, spec: { template: { spec: {} } } })
    })
    expect(broken.status).toBe(201)
    // A ClusterTrainingRuntime the config does not name: cluster-scoped, so listed cluster-wide.
    const clusterWide = await fetch(`${plain.url}/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...(parse(readFileSync(example("runtime.yaml"), "utf8")) as Record<string, unknown>), kind: "ClusterTrainingRuntime", metadata: { name: "cluster-torch" } })
    })
    expect(clusterWide.status).toBe(201)
    const [text, json] = await Promise.all([dispatch(["runtimes", ...k()]), dispatch(["runtimes", ...k(), "-o", "json"])])
    expect(text.code).toBe(ExitCode.ok)
    expect(text.stdout).toMatch(/^TrainingRuntime\s+dispatch-torch\s+yes\s+yes\s+yes$/m)
    expect(text.stdout).toMatch(/^TrainingRuntime\s+broken\s+no\s+yes\s+no$/m)
    expect(text.stdout).toMatch(/^ClusterTrainingRuntime\s+cluster-torch\s+no\s+yes\s+no\n\s+- .*not one of the configured runtimes/m)
    expect(JSON.parse(json.stdout)).toContainEqual({
      kind: "TrainingRuntime",
      name: "broken",
      configured: false,
      onCluster: true,
      usable: false,
      reasons: [expect.stringContaining("not one of the configured runtimes"), "runtime TrainingRuntime/broken: has no spec.template.spec.replicatedJobs list"]
    })
  })

  it("new-id prints a fresh JobID each time", async () => {
    const [a, b, json] = await Promise.all([dispatch(["new-id"]), dispatch(["new-id"]), dispatch(["new-id", "-o", "json"])])
    for (const id of [a.stdout.trim(), b.stdout.trim(), (JSON.parse(json.stdout) as { job: string }).job]) expect(isJobId(id)).toBe(true)
    expect(a.stdout).not.toBe(b.stdout)
  })
})
