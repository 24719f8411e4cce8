// The built `dispatch` binary, run as a subprocess: every command, every exit code, the -o json
// shapes, and bad input files.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Result } from "effect"
import { decodeConfig, decodeStartRequest, renderStart } from "@dispatch/render"
import { kubeconfigFor } from "@dispatch/sim"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parse, parseAllDocuments } from "yaml"
import { ExitCode } from "../../src/ExitCode.ts"
import { dispatch, ensureBuilt, example, processTestMs, serve } from "../DispatchBinary.ts"

const exampleRequest = JSON.parse(readFileSync(example("request.json"), "utf8")) as { spec: Record<string, unknown> } & Record<string, unknown>
const exampleConfig = JSON.parse(readFileSync(example("config.json"), "utf8")) as Record<string, unknown>

let dir: string
const file = (name: string, content: unknown): string => {
  const path = join(dir, name)
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content))
  return path
}

/** No stack trace: no `    at ` frame lines and no source locations. */
const noStack = (text: string) => expect(text).not.toMatch(/^\s+at |\.js:\d+:\d+/m)

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "dispatch-cli-"))
  await ensureBuilt()
}, processTestMs)
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe("dispatch help and usage", { timeout: processTestMs }, () => {
  it("lists every command and the exit codes; an unknown command or option is usage (2); a port in use is 1", async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve))
    const port = String((taken.address() as { port: number }).port)
    const [help, unknown, badOption, missing, both, badServe, portInUse, badRunTime] = await Promise.all([
      dispatch(["help"]),
      dispatch(["launch"]),
      dispatch(["render", "--request", "r.json", "--runtime", "rt.yaml", "--colour", "red", "-o", "xml"]),
      dispatch(["start"]),
      dispatch(["start", "--request", "r.json", "--sim", "--kubeconfig", "k"]),
      dispatch(["sim", "serve", "--mode", "fast", "--fault", "create:trainjobs=explode"]),
      dispatch(["sim", "serve", "--port", port]),
      dispatch(["sim", "serve", "--run-time", "0"])
    ])
    await new Promise((resolve) => taken.close(resolve))
    expect(help.code).toBe(ExitCode.ok)
    for (const command of ["render", "start", "find", "open", "hold", "release", "stop", "probe", "capabilities", "sim serve", "demo"]) {
      expect(help.stdout).toContain(`dispatch ${command} `)
    }
    expect(help.stdout).toContain("8 ErrOutcomeUnknown")
    expect(unknown).toMatchObject({ code: ExitCode.usage, stdout: "" })
    expect(unknown.stderr).toContain('unknown command "launch"')
    expect(badOption.code).toBe(ExitCode.usage)
    expect(badOption.stderr).toContain("dispatch render: unknown option --colour")
    expect(badOption.stderr).toContain('dispatch render: -o/--output "xml" is not one of yaml, json')
    expect(missing.code).toBe(ExitCode.usage)
    expect(missing.stderr).toContain("dispatch start: --request is required")
    expect(both.stderr).toContain("--sim and --kubeconfig cannot be used together")
    expect(badServe.code).toBe(ExitCode.usage)
    expect(badServe.stderr).toContain('dispatch sim serve: --mode "fast" is not one of plain, kueue')
    expect(badServe.stderr).toContain('dispatch sim serve: --fault "create:trainjobs=explode": the action must be')
    expect(portInUse.code).toBe(ExitCode.failure)
    expect(portInUse.stderr).toContain("EADDRINUSE")
    expect(badRunTime.code).toBe(ExitCode.usage)
    expect(badRunTime.stderr).toContain('dispatch sim serve: --run-time "0" is not a whole number of seconds from 1 to 999999')
    for (const run of [unknown, badOption, missing, both, badServe, portInUse, badRunTime]) noStack(run.stderr)
  })
})

describe("dispatch render", { timeout: processTestMs }, () => {
  it("prints the runtime copy and the TrainJob render makes, as YAML or as JSON", async () => {
    const args = ["render", "--request", "examples/request.json", "--runtime", "examples/runtime.yaml"]
    const [yaml, json] = await Promise.all([dispatch(args), dispatch([...args, "-o", "json"])])
    const runtime: unknown = parse(readFileSync(example("runtime.yaml"), "utf8"))
    const expected = renderStart(Result.getOrThrow(decodeStartRequest(exampleRequest)), Result.getOrThrow(decodeConfig(exampleConfig)), runtime)
    expect(Result.isSuccess(expected)).toBe(true)
    if (Result.isFailure(expected)) return
    expect(yaml.code).toBe(ExitCode.ok)
    expect(parseAllDocuments(yaml.stdout).map((d) => d.toJS() as unknown)).toEqual([expected.success.runtimeCopy, expected.success.trainJob])
    expect(json.code).toBe(ExitCode.ok)
    expect(JSON.parse(json.stdout)).toEqual({ runtimeCopy: expected.success.runtimeCopy, trainJob: expected.success.trainJob })
  })

  it("refuses with every reason: ErrInvalid exits 3, and -o json prints {error, reasons} on stdout", async () => {
    const bad = file("bad-request.json", { ...exampleRequest, submission: 0, spec: { ...exampleRequest.spec, nodes: 0, env: { DISPATCH_X: "1" } } })
    const args = ["render", "--request", bad, "--runtime", "examples/runtime.yaml"]
    const [text, json] = await Promise.all([dispatch(args), dispatch([...args, "-o", "json"])])
    expect(text.code).toBe(ExitCode.ErrInvalid)
    expect(text.stdout).toBe("")
    expect(text.stderr).toMatch(/^dispatch render: ErrInvalid: /)
    noStack(text.stderr)
    expect(json.code).toBe(ExitCode.ErrInvalid)
    const refusal = JSON.parse(json.stdout) as { error: string; reasons: Array<string> }
    expect(refusal.error).toBe("ErrInvalid")
    expect(refusal.reasons.length).toBe(3)
    for (const field of ["submission", "spec.nodes", "spec.env"]) expect(refusal.reasons.some((r) => r.includes(field))).toBe(true)
    for (const reason of refusal.reasons) expect(text.stderr).toContain(`  - ${reason}`)
  })

  it("refuses a request whose runtime is not in the files: ErrUnsupported exits 4", async () => {
    const other = file("other-runtime.json", { ...exampleRequest, spec: { ...exampleRequest.spec, extensions: { ...(exampleRequest.spec["extensions"] as object), "kubeflow/RuntimeRef": { kind: "TrainingRuntime", name: "elsewhere" } } } })
    const run = await dispatch(["render", "--request", other, "--runtime", "examples/runtime.yaml", "-o", "json"])
    expect(run.code).toBe(ExitCode.ErrUnsupported)
    expect(JSON.parse(run.stdout)).toMatchObject({ error: "ErrUnsupported", reasons: expect.arrayContaining([expect.stringContaining("TrainingRuntime/elsewhere")]) })
  })

  it("names the file, and the line or the field, of every bad input file", async () => {
    const notYaml = file("not-yaml.yaml", "job: [unclosed\n")
    const empty = file("empty.yaml", "# nothing\n")
    const two = file("two.yaml", "a: 1\n---\nb: 2\n")
    const wrongShape = file("wrong-shape.yaml", "job: 42\nspec: {}\n")
    const badConfig = file("bad-config.json", { namespace: "Not A Label", mode: "plain", runtimes: [] })
    const runtime = ["--runtime", "examples/runtime.yaml"]
    const [missing, yaml, nothing, many, shape, config, runtimeFile] = await Promise.all([
      dispatch(["render", "--request", join(dir, "absent.json"), ...runtime]),
      dispatch(["render", "--request", notYaml, ...runtime]),
      dispatch(["render", "--request", empty, ...runtime]),
      dispatch(["render", "--request", two, ...runtime]),
      dispatch(["render", "--request", wrongShape, ...runtime]),
      dispatch(["render", "--request", "examples/request.json", "--config", badConfig, ...runtime]),
      dispatch(["render", "--request", "examples/request.json", "--runtime", notYaml])
    ])
    expect(missing.code).toBe(ExitCode.usage)
    expect(missing.stderr).toContain(`cannot read ${join(dir, "absent.json")}: ENOENT`)
    expect(yaml.code).toBe(ExitCode.usage)
    expect(yaml.stderr).toMatch(new RegExp(`${notYaml}: not valid YAML or JSON: .* at line \\d+, column \\d+`))
    expect(nothing).toMatchObject({ code: ExitCode.usage, stderr: expect.stringContaining(`${empty}: is empty`) })
    expect(many).toMatchObject({ code: ExitCode.usage, stderr: expect.stringContaining(`${two}: holds 2 documents, expected one`) })
    expect(shape.code).toBe(ExitCode.ErrInvalid)
    expect(shape.stderr).toContain(`${wrongShape}: job: Expected string, got 42`)
    expect(shape.stderr).toContain(`${wrongShape}: spec.command: required`)
    expect(config.code).toBe(ExitCode.ErrInvalid)
    expect(config.stderr).toContain(`${badConfig}: config namespace:`)
    expect(config.stderr).toContain(`${badConfig}: config runtimes: must list at least one runtime`)
    expect(runtimeFile.code).toBe(ExitCode.usage)
    expect(runtimeFile.stderr).toContain(`${notYaml}: document 1:`)
    for (const run of [missing, yaml, nothing, many, shape, config, runtimeFile]) noStack(run.stderr)
  })
})

describe("dispatch start", { timeout: processTestMs }, () => {
  it("starts the example on the embedded simulator, in words or as {ref, namespace, name, uid, created, gateClosed}", async () => {
    const [text, json] = await Promise.all([
      dispatch(["start", "--sim", "--request", "examples/request.json"]),
      dispatch(["start", "--sim", "--request", "examples/request.json", "--config", "examples/config-kueue.json", "-o", "json"])
    ])
    expect(text.code).toBe(ExitCode.ok)
    expect(text.stdout).toMatch(/^started ml-team\/dj-01jd8x2q4m7n9p3r5s6t8v0w1y-s17 \(uid [0-9a-f-]{36}\); its start gate is closed\n/)
    expect(json.code).toBe(ExitCode.ok)
    const result = JSON.parse(json.stdout) as Record<string, unknown>
    expect(result).toEqual({
      ref: "ml-team/dj-01jd8x2q4m7n9p3r5s6t8v0w1y-s17",
      namespace: "ml-team",
      name: "dj-01jd8x2q4m7n9p3r5s6t8v0w1y-s17",
      uid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      created: true,
      gateClosed: true
    })
  })

  it("exits 3 for an invalid request and 4 for a runtime outside the config", async () => {
    const invalid = file("start-invalid.json", { ...exampleRequest, job: "not-a-ulid" })
    const narrow = file("narrow-config.json", { ...exampleConfig, runtimes: [{ kind: "TrainingRuntime", name: "another" }] })
    const [three, four] = await Promise.all([
      dispatch(["start", "--sim", "--request", invalid, "-o", "json"]),
      dispatch(["start", "--sim", "--request", "examples/request.json", "--config", narrow, "-o", "json"])
    ])
    expect(three.code).toBe(ExitCode.ErrInvalid)
    expect(JSON.parse(three.stdout)).toMatchObject({ error: "ErrInvalid", reasons: [expect.stringContaining("job")] })
    expect(four.code).toBe(ExitCode.ErrUnsupported)
    expect(JSON.parse(four.stdout)).toMatchObject({ error: "ErrUnsupported" })
  })

  it("exits 6 when nothing listens at the kubeconfig's server; a missing or clusterless kubeconfig is usage (2) naming the file and why", async () => {
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve))
    const port = (closed.address() as { port: number }).port
    await new Promise((resolve) => closed.close(resolve))
    const kubeconfig = file("closed.kubeconfig", kubeconfigFor({ url: `http://127.0.0.1:${port}` }))
    const clusterless = file("empty.kubeconfig", "apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n")
    const [refused, unreadable, empty] = await Promise.all([
      dispatch(["start", "--kubeconfig", kubeconfig, "--request", "examples/request.json", "-o", "json"]),
      dispatch(["start", "--kubeconfig", join(dir, "no-such-kubeconfig"), "--request", "examples/request.json"]),
      dispatch(["find", "--kubeconfig", clusterless, "--config", "examples/config.json", "--job", "01JD8X2Q4M7N9P3R5S6T8V0W1Y", "--submission", "1"])
    ])
    expect(refused.code).toBe(ExitCode.ErrUnreachable)
    expect(JSON.parse(refused.stdout)).toMatchObject({ error: "ErrUnreachable", reasons: [expect.stringContaining("ECONNREFUSED")] })
    expect(unreadable.code).toBe(ExitCode.usage)
    // A missing file is said to be missing, not unreachable.
    expect(unreadable.stderr).toContain(`cannot read kubeconfig ${join(dir, "no-such-kubeconfig")}: ENOENT`)
    expect(unreadable.stderr).not.toContain("Unreachable")
    expect(empty.code).toBe(ExitCode.usage)
    expect(empty.stderr).toContain(`load kubeconfig ${clusterless}`)
    expect(empty.stderr).toContain("has no current cluster")
    for (const run of [refused, unreadable, empty]) noStack(run.stderr)
  })

  it("exits 7 on a read-only cluster, 8 when the TrainJob create goes unanswered, 5 when a foreign copy is in the way", async () => {
    // The dropped create is waited for this long; every other call must be answered within it, however busy the machine.
    const fast = file("fast-config.json", { ...exampleConfig, timeouts: { call: "10s", callBound: "10s" } })
    const runtime = ["--runtime", "examples/runtime.yaml"]
    const readOnly = await serve(["--kubeconfig-out", join(dir, "ro.kubeconfig"), ...runtime, "--read-only"])
    const dropping = await serve(["--kubeconfig-out", join(dir, "drop.kubeconfig"), ...runtime, "--fault", "create:trainjobs=drop"])
    const plain = await serve(["--kubeconfig-out", join(dir, "conflict.kubeconfig"), ...runtime])
    try {
      // Someone else's TrainingRuntime under the name Start's copy must have.
      const name = "dj-01jd8x2q4m7n9p3r5s6t8v0w1y-s17"
      const placed = await fetch(`${plain.url}/apis/trainer.kubeflow.org/v1alpha1/namespaces/ml-team/trainingruntimes`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainingRuntime", metadata: { name, namespace: "ml-team" }, spec: { template: { spec: { replicatedJobs: [] } } } })
      })
      expect(placed.status).toBe(201)
      const request = ["--request", "examples/request.json", "-o", "json"]
      const [seven, eight, five] = await Promise.all([
        dispatch(["start", "--kubeconfig", join(dir, "ro.kubeconfig"), ...request]),
        dispatch(["start", "--kubeconfig", join(dir, "drop.kubeconfig"), "--config", fast, ...request]),
        dispatch(["start", "--kubeconfig", join(dir, "conflict.kubeconfig"), ...request])
      ])
      // Without --config on a real cluster, the command says which config it uses; with one, it does not.
      expect(seven.stderr).toMatch(/^dispatch start: no --config: using the bundled example .*config\.json \(namespace ml-team, plain mode\)$/m)
      expect(eight.stderr).not.toContain("no --config")
      expect(seven.code).toBe(ExitCode.ErrReadOnly)
      expect(JSON.parse(seven.stdout)).toMatchObject({ error: "ErrReadOnly", reasons: [expect.stringContaining("Forbidden (403)"), expect.stringContaining("missing permission: create trainingruntimes.trainer.kubeflow.org in namespace ml-team")] })
      expect(eight.code).toBe(ExitCode.ErrOutcomeUnknown)
      expect(JSON.parse(eight.stdout)).toMatchObject({ error: "ErrOutcomeUnknown", ref: { namespace: "ml-team", name } })
      expect(eight.stderr).toContain("run `dispatch find` before retrying")
      expect(five.code).toBe(ExitCode.ErrRejected)
      expect(JSON.parse(five.stdout)).toMatchObject({ error: "ErrRejected", reasons: [expect.stringContaining("differs from its source")] })
    } finally {
      expect(await Promise.all([readOnly.stop(), dropping.stop(), plain.stop()])).toEqual([0, 0, 0])
    }
  })
})
