import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parse } from "yaml"
import type { CliIo } from "../../src/CliIo.ts"
import { ExitCode } from "../../src/ExitCode.ts"
import { runCli } from "../../src/Cli.ts"
import { processIo } from "../../src/ProcessIo.ts"
import { ensureBuilt, kubectl, processTestMs, serve } from "../DispatchBinary.ts"
import { alive } from "../Processes.ts"

const runtimeYaml = `apiVersion: trainer.kubeflow.org/v1alpha1
kind: ClusterTrainingRuntime
metadata:
  name: torch-distributed
spec:
  mlPolicy:
    numNodes: 1
    torch: {}
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            metadata:
              labels:
                trainer.kubeflow.org/trainjob-ancestor-step: trainer
            spec:
              template:
                spec:
                  containers:
                    - name: node
                      image: example.org/train:1
---
apiVersion: v1
kind: Namespace
metadata:
  name: team-a
---
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata:
  name: local
  namespace: team-a
spec:
  mlPolicy:
    numNodes: 1
  template:
    spec:
      replicatedJobs: []
`

/** A CliIo on real files whose stop signal the test gives, recording what was printed. */
const testIo = () => {
  let stop: () => void = () => {}
  const out: Array<string> = []
  const err: Array<string> = []
  const real = processIo()
  const io: CliIo = {
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    progress: (line) => out.push(line),
    cwd: process.cwd(),
    status: () => {},
    terminal: false,
    errTerminal: false,
    env: {},
    readFile: real.readFile,
    writeFile: real.writeFile,
    stopRequested: new Promise<void>((resolve) => (stop = resolve))
  }
  return { io, out, err, stop: () => stop() }
}

const until = async (check: () => boolean): Promise<boolean> => {
  // Bounded generously: the server starts in well under a second on an idle machine.
  for (const end = Date.now() + 60_000; Date.now() < end && !check(); ) await new Promise((r) => setTimeout(r, 25))
  return check()
}

const readIfThere = (path: string): string => {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return ""
  }
}

describe("dispatch sim serve", () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "sim-serve-"))
    writeFileSync(join(dir, "runtimes.yaml"), runtimeYaml)
    writeFileSync(join(dir, "broken.yaml"), "kind: [unclosed\n")
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it("serves the seeded runtimes, writes a kubeconfig, and stops cleanly when asked", async () => {
    const t = testIo()
    const kubeconfig = join(dir, "kubeconfig")
    const exit = runCli(["sim", "serve", "--port", "0", "--kubeconfig-out", kubeconfig, "--runtime", join(dir, "runtimes.yaml")], t.io)
    expect(await until(() => t.out.length > 0)).toBe(true)
    const url = t.out[0] ?? ""
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const config = parse(readFileSync(kubeconfig, "utf8")) as { clusters: Array<{ cluster: { server: string } }>; contexts: Array<{ context: { namespace?: string } }> }
    expect(config.clusters[0]?.cluster.server).toBe(url)
    // With no --config the served namespace is default; the context names it all the same.
    expect(config.contexts[0]?.context.namespace).toBe("default")
    // Trainer's public version ConfigMap, as its manifests install it, which Kubeflow's SDK reads.
    const version = await fetch(`${url}/api/v1/namespaces/kubeflow-system/configmaps/kubeflow-trainer-public`)
    expect(version.status).toBe(200)
    expect(((await version.json()) as { data: Record<string, string> }).data).toEqual({ kubeflow_trainer_version: "v2.3.0" })
    const runtime = await fetch(`${url}/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes/torch-distributed`)
    expect(runtime.status).toBe(200)
    const local = await fetch(`${url}/apis/trainer.kubeflow.org/v1alpha1/namespaces/team-a/trainingruntimes/local`)
    expect(local.status).toBe(200)
    t.stop()
    expect(await exit).toBe(ExitCode.ok)
    await expect(fetch(`${url}/version`)).rejects.toThrow()
  })

  it("creates the admission check of the bundled Kueue config's queue in kueue mode", async () => {
    const t = testIo()
    const exit = runCli(["sim", "serve", "--port", "0", "--kubeconfig-out", join(dir, "kueue-kubeconfig"), "--mode", "kueue"], t.io)
    expect(await until(() => t.out.length > 0)).toBe(true)
    const check = `${t.out[0]}/apis/kueue.x-k8s.io/v1beta2/admissionchecks/dispatch-start`
    let found = false
    for (const end = Date.now() + 60_000; Date.now() < end && !found; ) {
      found = (await fetch(check)).status === 200
      if (!found) await new Promise((r) => setTimeout(r, 25))
    }
    expect(found).toBe(true)
    t.stop()
    expect(await exit).toBe(ExitCode.ok)
  })

  it("--mode kueue with quota flags creates the config's LocalQueue and a ClusterQueue with those nominal quotas", async () => {
    const t = testIo()
    const kubeconfig = join(dir, "quota-kubeconfig")
    const exit = runCli(["sim", "serve", "--port", "0", "--kubeconfig-out", kubeconfig, "--mode", "kueue", "--queue-cpu", "8", "--queue-gpus", "4", "--cluster-queue", "team-cq"], t.io)
    try {
      expect(await until(() => t.out.length > 0)).toBe(true)
      let local = ""
      for (const end = Date.now() + 60_000; Date.now() < end && !local.includes("team-cq"); ) {
        local = (await kubectl(["--kubeconfig", kubeconfig, "-n", "ml-team", "get", "localqueues", "ml-team-queue", "-o", "jsonpath={.spec.clusterQueue}"])).stdout
        if (!local.includes("team-cq")) await new Promise((r) => setTimeout(r, 50))
      }
      expect(local).toBe("team-cq")
      const cq = JSON.parse((await kubectl(["--kubeconfig", kubeconfig, "get", "clusterqueues", "team-cq", "-o", "json"])).stdout) as {
        spec: { admissionChecks: Array<string>; resourceGroups: Array<{ flavors: Array<{ resources: Array<{ name: string; nominalQuota: string }> }> }> }
      }
      expect(cq.spec.admissionChecks).toEqual(["dispatch-start"])
      expect(cq.spec.resourceGroups[0]?.flavors[0]?.resources).toEqual([{ name: "cpu", nominalQuota: "8" }, { name: "nvidia.com/gpu", nominalQuota: "4" }])
    } finally {
      t.stop()
      expect(await exit).toBe(ExitCode.ok)
    }
  })

  it("creates the namespace of --config, so that its first probe and Start find it", async () => {
    // A runtime file with only a ClusterTrainingRuntime names no namespace: the config's must come from --config.
    const runtimes = join(dir, "cluster-only.yaml")
    writeFileSync(runtimes, runtimeYaml.split("---")[0] ?? "")
    const config = join(dir, "team-b.json")
    writeFileSync(config, JSON.stringify({ namespace: "team-b", mode: "plain", runtimes: [{ kind: "ClusterTrainingRuntime", name: "torch-distributed" }] }))
    const request = join(dir, "team-b-request.json")
    writeFileSync(request, JSON.stringify({ job: "01JD8X2Q4M7N9P3R5S6T8V0W1Y", generation: 1, submission: 1, attempt: 1, spec: { command: ["python", "train.py"], env: {}, nodes: 1, extensions: { "dispatch/Image": { ref: "example.org/train:1" }, "kubeflow/RuntimeRef": { kind: "ClusterTrainingRuntime", name: "torch-distributed" } } } }))
    const t = testIo()
    const kubeconfig = join(dir, "team-b-kubeconfig")
    const exit = runCli(["sim", "serve", "--port", "0", "--kubeconfig-out", kubeconfig, "--runtime", runtimes, "--config", config], t.io)
    try {
      expect(await until(() => t.out.length > 0)).toBe(true)
      expect((await fetch(`${t.out[0]}/api/v1/namespaces/team-b`)).status).toBe(200)
      // A client given only the kubeconfig lands in the served namespace.
      expect((parse(readFileSync(kubeconfig, "utf8")) as { contexts: Array<{ context: { namespace?: string } }> }).contexts[0]?.context.namespace).toBe("team-b")
      expect((await kubectl(["--kubeconfig", kubeconfig, "config", "view", "--minify", "-o", "jsonpath={.contexts[0].context.namespace}"])).stdout).toBe("team-b")
      const probed = testIo()
      expect(await runCli(["probe", "--kubeconfig", kubeconfig, "--config", config], probed.io)).toBe(ExitCode.ok)
      expect(probed.out[0]).toBe("backend open: every gate proven")
      const started = testIo()
      const startExit = await runCli(["start", "--kubeconfig", kubeconfig, "--config", config, "--request", request], started.io)
      expect(started.err).toEqual([])
      expect(startExit).toBe(ExitCode.ok)
      const job = await fetch(`${t.out[0]}/apis/trainer.kubeflow.org/v1alpha1/namespaces/team-b/trainjobs/dj-01jd8x2q4m7n9p3r5s6t8v0w1y-s1`)
      expect(job.status).toBe(200)
    } finally {
      t.stop()
      expect(await exit).toBe(ExitCode.ok)
    }
  })

  it("--fault create:trainjobs=refuse: Start fails definitely (retry later), not with an unknown outcome, and leaves no copy", async () => {
    const config = join(dir, "refuse.json")
    writeFileSync(config, JSON.stringify({ namespace: "team-a", mode: "plain", runtimes: [{ kind: "ClusterTrainingRuntime", name: "torch-distributed" }] }))
    const request = join(dir, "refuse-request.json")
    writeFileSync(request, JSON.stringify({ job: "01JD8X2Q4M7N9P3R5S6T8V0W1Y", generation: 1, submission: 2, attempt: 1, spec: { command: ["python", "train.py"], env: {}, nodes: 1, extensions: { "dispatch/Image": { ref: "example.org/train:1" }, "kubeflow/RuntimeRef": { kind: "ClusterTrainingRuntime", name: "torch-distributed" } } } }))
    const t = testIo()
    const kubeconfig = join(dir, "refuse-kubeconfig")
    const exit = runCli(["sim", "serve", "--port", "0", "--kubeconfig-out", kubeconfig, "--runtime", join(dir, "runtimes.yaml"), "--config", config, "--fault", "create:trainjobs=refuse"], t.io)
    try {
      expect(await until(() => t.out.length > 0)).toBe(true)
      const started = testIo()
      const code = await runCli(["start", "--kubeconfig", kubeconfig, "--config", config, "--request", request], started.io)
      expect(started.err.join("\n")).toContain("connection refused")
      expect(code).toBe(ExitCode.ErrUnreachable)
      // What the store holds: neither the TrainJob nor the runtime copy Start made before it.
      const listed = async (plural: string) =>
        ((await (await fetch(`${t.out[0]}/apis/trainer.kubeflow.org/v1alpha1/namespaces/team-a/${plural}`)).json()) as { items: Array<{ metadata: { name: string } }> }).items.map((o) => o.metadata.name)
      expect(await listed("trainjobs")).toEqual([])
      expect(await listed("trainingruntimes")).toEqual(["local"])
    } finally {
      t.stop()
      expect(await exit).toBe(ExitCode.ok)
    }
  })

  it("--exec: a started and opened job's real command output is read back by kubectl logs, and no process outlives the server", async () => {
    const config = join(dir, "exec.json")
    writeFileSync(config, JSON.stringify({ namespace: "team-a", mode: "plain", runtimes: [{ kind: "ClusterTrainingRuntime", name: "torch-distributed" }] }))
    const pidFile = join(dir, "exec.pid")
    const request = join(dir, "exec-request.json")
    // The command records its process id, prints a line, then outlives the test unless it is killed.
    const script = `echo $$ > ${pidFile}; echo hello-from-exec; exec sleep 600`
    writeFileSync(request, JSON.stringify({ job: "01JD8X2Q4M7N9P3R5S6T8V0W1Y", generation: 1, submission: 3, attempt: 1, spec: { command: ["sh", "-c", script], env: {}, nodes: 1, extensions: { "dispatch/Image": { ref: "example.org/train:1" }, "kubeflow/RuntimeRef": { kind: "ClusterTrainingRuntime", name: "torch-distributed" } } } }))
    const t = testIo()
    const kubeconfig = join(dir, "exec-kubeconfig")
    const exit = runCli(["sim", "serve", "--port", "0", "--kubeconfig-out", kubeconfig, "--runtime", join(dir, "runtimes.yaml"), "--config", config, "--exec"], t.io)
    let pid: number | undefined
    try {
      expect(await until(() => t.out.length > 0)).toBe(true)
      const target = ["--kubeconfig", kubeconfig, "--config", config]
      expect(await runCli(["start", ...target, "--request", request], testIo().io)).toBe(ExitCode.ok)
      expect(await runCli(["open", "dj-01jd8x2q4m7n9p3r5s6t8v0w1y-s3", ...target], testIo().io)).toBe(ExitCode.ok)
      let logs = ""
      for (const end = Date.now() + 60_000; Date.now() < end && !logs.includes("hello-from-exec"); ) {
        logs = (await kubectl(["--kubeconfig", kubeconfig, "-n", "team-a", "logs", "-l", "jobset.sigs.k8s.io/jobset-name=dj-01jd8x2q4m7n9p3r5s6t8v0w1y-s3"])).stdout
        if (!logs.includes("hello-from-exec")) await new Promise((r) => setTimeout(r, 100))
      }
      expect(logs).toContain("hello-from-exec")
      expect(await until(() => /^\d+\s*$/.test(readIfThere(pidFile)))).toBe(true)
      pid = Number(readIfThere(pidFile))
      expect(alive(pid)).toBe(true)
    } finally {
      t.stop()
      expect(await exit).toBe(ExitCode.ok)
    }
    expect(alive(pid)).toBe(false)
  })

  it("--exec: a server killed with SIGKILL, which runs no handler, still takes its containers' processes with it", async () => {
    await ensureBuilt()
    const config = join(dir, "killed.json")
    writeFileSync(config, JSON.stringify({ namespace: "team-a", mode: "plain", runtimes: [{ kind: "ClusterTrainingRuntime", name: "torch-distributed" }] }))
    const pidFile = join(dir, "killed.pids")
    const request = join(dir, "killed-request.json")
    // The command forks a child that ignores SIGTERM, records both process ids, and would outlive the test.
    const script = `(trap '' TERM; sleep 600) & echo $$ $! > ${pidFile}; wait`
    writeFileSync(request, JSON.stringify({ job: "01JD8X2Q4M7N9P3R5S6T8V0W1Y", generation: 1, submission: 4, attempt: 1, spec: { command: ["sh", "-c", script], env: {}, nodes: 1, extensions: { "dispatch/Image": { ref: "example.org/train:1" }, "kubeflow/RuntimeRef": { kind: "ClusterTrainingRuntime", name: "torch-distributed" } } } }))
    const kubeconfig = join(dir, "killed-kubeconfig")
    const server = await serve(["--kubeconfig-out", kubeconfig, "--runtime", join(dir, "runtimes.yaml"), "--config", config, "--exec"])
    let pids: ReadonlyArray<number> = []
    try {
      const target = ["--kubeconfig", kubeconfig, "--config", config]
      expect(await runCli(["start", ...target, "--request", request], testIo().io)).toBe(ExitCode.ok)
      expect(await runCli(["open", "dj-01jd8x2q4m7n9p3r5s6t8v0w1y-s4", ...target], testIo().io)).toBe(ExitCode.ok)
      expect(await until(() => /^\d+ \d+\s*$/.test(readIfThere(pidFile)))).toBe(true)
      pids = readIfThere(pidFile).trim().split(" ").map(Number)
      expect(pids.every(alive)).toBe(true)
    } finally {
      server.child.kill("SIGKILL")
    }
    expect(await until(() => !pids.some(alive))).toBe(true)
  }, processTestMs)

  it("demo --exec runs the request's command for real: a command that exits 3 fails the job, one that exits 0 succeeds it", async () => {
    const example = JSON.parse(readFileSync(join(process.cwd(), "examples", "request.json"), "utf8")) as { spec: Record<string, unknown> }
    const demoWith = async (command: ReadonlyArray<string>) => {
      const request = join(dir, `demo-exec-${command.length}-${String(command.at(-1)).length}.json`)
      // No workDir: the example's /workspace/resnet is not on this machine, and dispatch's prologue refuses a missing one.
      const { workDir: _, ...spec } = example.spec
      writeFileSync(request, JSON.stringify({ ...example, spec: { ...spec, command } }))
      const t = testIo()
      return { code: await runCli(["demo", "--exec", "--request", request], t.io), printed: [...t.out, ...t.err].join("\n") }
    }
    const failing = await demoWith(["sh", "-c", "exit 3"])
    expect(failing.printed).toContain("Failed")
    expect(failing.code).not.toBe(ExitCode.ok)
    const passing = await demoWith(["sh", "-c", "echo ok"])
    expect(passing.printed).toContain("Succeeded")
    expect(passing.code).toBe(ExitCode.ok)
  })

  it("--exec needs --sim on a cluster command and on serve", async () => {
    for (const line of [["find", "dj-01jd8x2q4m7n9p3r5s6t8v0w1y-s3", "--exec"], ["serve", "--exec"]]) {
      const t = testIo()
      expect(await runCli(line, t.io)).toBe(ExitCode.usage)
      expect(t.err.join("\n")).toContain("--exec runs the embedded simulator's pods as processes: it needs --sim")
    }
  })

  it.each([true, false])("dispatch logs reads every node's pod log through the kubeconfig (exec %s)", async (exec) => {
    const config = join(dir, "logs.json")
    writeFileSync(config, JSON.stringify({ namespace: "team-a", mode: "plain", runtimes: [{ kind: "ClusterTrainingRuntime", name: "torch-distributed" }] }))
    const request = join(dir, "logs-request.json")
    writeFileSync(request, JSON.stringify({ job: "01JD8X2Q4M7N9P3R5S6T8V0W1Y", generation: 1, submission: 5, attempt: 1, spec: { command: ["sh", "-c", "echo first-line; echo last-line"], env: {}, nodes: 2, extensions: { "dispatch/Image": { ref: "example.org/train:1" }, "kubeflow/RuntimeRef": { kind: "ClusterTrainingRuntime", name: "torch-distributed" } } } }))
    const t = testIo()
    const kubeconfig = join(dir, `logs-kubeconfig-${exec}`)
    const exit = runCli(["sim", "serve", "--port", "0", "--kubeconfig-out", kubeconfig, "--runtime", join(dir, "runtimes.yaml"), "--config", config, "--run-time", "1", ...(exec ? ["--exec"] : [])], t.io)
    try {
      expect(await until(() => t.out.length > 0)).toBe(true)
      const target = ["--kubeconfig", kubeconfig, "--config", config]
      const name = "dj-01jd8x2q4m7n9p3r5s6t8v0w1y-s5"
      expect(await runCli(["start", ...target, "--request", request], testIo().io)).toBe(ExitCode.ok)
      expect(await runCli(["open", name, ...target], testIo().io)).toBe(ExitCode.ok)
      // -f returns once both pods' containers have ended, with every line each wrote.
      const followed = testIo()
      expect(await runCli(["logs", name, ...target, "-f"], followed.io)).toBe(ExitCode.ok)
      const expected = exec ? "last-line" : "[sim] exited with code 0"
      for (const node of [0, 1]) expect(followed.out).toContain(`[node-${node}] ${expected}`)
      if (exec) expect(followed.out.filter((l) => l.startsWith("[node-0]"))).toEqual(["[node-0] first-line", "[node-0] last-line"])
      const one = testIo()
      expect(await runCli(["logs", "--job", "01JD8X2Q4M7N9P3R5S6T8V0W1Y", "--submission", "5", ...target, "--node", "1", "--tail", "1"], one.io)).toBe(ExitCode.ok)
      expect(one.out).toEqual([expected])
      const missing = testIo()
      expect(await runCli(["logs", name, ...target, "--node", "7"], missing.io)).toBe(ExitCode.failure)
      expect(missing.err.join("\n")).toContain("has no pod for node 7 (nodes: 0, 1)")
      // -c names the container; one the pods do not have is refused by the server, per pod.
      const named = testIo()
      expect(await runCli(["logs", name, ...target, "-c", "node", "--node", "1", "--tail", "1"], named.io)).toBe(ExitCode.ok)
      expect(named.out).toEqual([expected])
      const wrong = testIo()
      expect(await runCli(["logs", name, ...target, "--container", "nope"], wrong.io)).toBe(ExitCode.failure)
      expect(wrong.err.join("\n")).toContain("container nope is not valid for pod")
      // --previous: no container of these pods has restarted, and the server says so.
      const previous = testIo()
      expect(await runCli(["logs", name, ...target, "--node", "0", "--previous"], previous.io)).toBe(ExitCode.failure)
      expect(previous.err.join("\n")).toContain('previous terminated container "node" in pod')
      // --since: the pods ended more than a second ago by the served clock (real time), so nothing is that recent.
      await new Promise((resolve) => setTimeout(resolve, 1500))
      const [recent, hour] = [testIo(), testIo()]
      expect(await runCli(["logs", name, ...target, "--since", "1s"], recent.io)).toBe(ExitCode.ok)
      expect(await runCli(["logs", name, ...target, "--since", "1h"], hour.io)).toBe(ExitCode.ok)
      expect(recent.out).toEqual([])
      expect(hour.out).toContain(`[node-0] ${expected}`)
    } finally {
      t.stop()
      expect(await exit).toBe(ExitCode.ok)
    }
  })

  it("dispatch probe exits by the cause of a failed write: 6 for a 503, 4 for a 422, 7 only for RBAC's 403", async () => {
    const config = join(dir, "probe-causes.json")
    writeFileSync(config, JSON.stringify({ namespace: "team-a", mode: "plain", runtimes: [{ kind: "ClusterTrainingRuntime", name: "torch-distributed" }] }))
    const probeWith = async (name: string, extra: ReadonlyArray<string>) => {
      const t = testIo()
      const kubeconfig = join(dir, `probe-${name}-kubeconfig`)
      const exit = runCli(["sim", "serve", "--port", "0", "--kubeconfig-out", kubeconfig, "--runtime", join(dir, "runtimes.yaml"), "--config", config, ...extra], t.io)
      try {
        expect(await until(() => t.out.length > 0)).toBe(true)
        const probed = testIo()
        const code = await runCli(["probe", "--kubeconfig", kubeconfig, "--config", config], probed.io)
        return { code, first: probed.out[0] ?? "" }
      } finally {
        t.stop()
        expect(await exit).toBe(ExitCode.ok)
      }
    }
    const [transient, refused, forbidden] = await Promise.all([
      probeWith("503", ["--fault", "create:trainjobs=503"]),
      probeWith("422", ["--fault", "create:trainjobs=422"]),
      probeWith("ro", ["--read-only"])
    ])
    expect(transient).toEqual({ code: ExitCode.ErrUnreachable, first: expect.stringContaining("backend closed: the probe's write failed transiently") })
    expect(refused).toEqual({ code: ExitCode.ErrUnsupported, first: expect.stringContaining("backend observe-only: the cluster refuses the probe") })
    expect(forbidden).toEqual({ code: ExitCode.ErrReadOnly, first: expect.stringContaining("backend read-only: the probe may not write") })
  })

  it("with --read-only, the real kubectl reads through the kubeconfig but may not write", async () => {
    const t = testIo()
    const kubeconfig = join(dir, "ro-kubeconfig")
    const exit = runCli(["sim", "serve", "--port", "0", "--kubeconfig-out", kubeconfig, "--runtime", join(dir, "runtimes.yaml"), "--read-only"], t.io)
    try {
      expect(await until(() => t.out.length > 0)).toBe(true)
      const read = await kubectl(["--kubeconfig", kubeconfig, "get", "trainingruntimes", "-n", "team-a", "-o", "name"])
      expect(read.stderr).toBe("")
      expect(read.stdout.trim()).toBe("trainingruntime.trainer.kubeflow.org/local")
      const write = await kubectl(["--kubeconfig", kubeconfig, "delete", "trainingruntime", "local", "-n", "team-a"])
      expect(write.code).not.toBe(0)
      expect(write.stderr).toContain("forbidden")
      const canCreate = await kubectl(["--kubeconfig", kubeconfig, "auth", "can-i", "create", "trainjobs", "-n", "team-a"])
      expect([canCreate.code, canCreate.stdout.trim()]).toEqual([1, "no"])
      const canList = await kubectl(["--kubeconfig", kubeconfig, "auth", "can-i", "list", "trainjobs", "-n", "team-a"])
      expect([canList.code, canList.stdout.trim()]).toEqual([0, "yes"])
    } finally {
      t.stop()
      expect(await exit).toBe(ExitCode.ok)
    }
  })

  it("names a bad or missing runtime file and exits 2 without serving", async () => {
    const t = testIo()
    const broken = join(dir, "broken.yaml")
    const missing = join(dir, "missing.yaml")
    const code = await runCli(["sim", "serve", "--port", "0", "--kubeconfig-out", join(dir, "k2"), "--runtime", broken, missing], t.io)
    expect(code).toBe(ExitCode.usage)
    expect(t.out).toEqual([])
    expect(t.err.some((l) => l.includes(broken) && l.includes("document 1"))).toBe(true)
    expect(t.err.some((l) => l.includes(missing) && l.includes("ENOENT"))).toBe(true)
  })

  it("names an object the simulator refuses", async () => {
    const t = testIo()
    const file = join(dir, "orphan.yaml")
    writeFileSync(file, "apiVersion: trainer.kubeflow.org/v1alpha1\nkind: TrainingRuntime\nmetadata:\n  name: Bad_Name\nspec: {}\n")
    const code = await runCli(["sim", "serve", "--port", "0", "--kubeconfig-out", join(dir, "k3"), "--runtime", file], t.io)
    expect(code).toBe(ExitCode.usage)
    expect(t.err.join("\n")).toContain(`${file} document 1 (TrainingRuntime Bad_Name): refused by the simulator (422)`)
  })

  it("exits 1 when the port is taken", async () => {
    const blocker = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve))
    const port = (blocker.address() as { port: number }).port
    const t = testIo()
    const code = await runCli(["sim", "serve", "--port", String(port), "--kubeconfig-out", join(dir, "k4")], t.io)
    await new Promise((resolve) => blocker.close(resolve))
    expect(code).toBe(ExitCode.failure)
    expect(t.err.join("\n")).toContain("EADDRINUSE")
  })

  it("prints usage for unknown commands and bad options", async () => {
    const unknown = testIo()
    expect(await runCli(["sim", "explode"], unknown.io)).toBe(ExitCode.usage)
    expect(unknown.err[0]).toBe('dispatch: unknown command "sim explode"')
    const help = testIo()
    expect(await runCli(["help"], help.io)).toBe(ExitCode.ok)
    expect(help.out.some((l) => l.includes("dispatch sim serve"))).toBe(true)
    const bad = testIo()
    expect(await runCli(["sim", "serve", "--port", "x"], bad.io)).toBe(ExitCode.usage)
    expect(bad.err).toContain('dispatch sim serve: --port "x" is not a port number (0-65535)')
  })
})
