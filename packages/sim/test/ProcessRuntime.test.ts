// With `exec`, each pod's container runs as a local process: its output is the pod's log, its exit
// ends the pod, the Job, the JobSet and the TrainJob; deadlines, Stop and closing the simulator kill
// it and everything it forked. Real processes take real time, so every wait waits for an event (an
// exit, a log line, a status) with a generous bound, never for a duration.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import type { KubeObject } from "../src/Api.ts"
import { commandLine, processEnv } from "../src/controllers/kubelet/ProcessRuntime.ts"
import type { Simulator } from "../src/Simulator.ts"
import { condition, create, get, list, simulator, statusOf, trainJob } from "./ControllersSim.ts"
import { eventually, serve } from "./HttpFixture.ts"

const opened: Array<Simulator> = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map((sim) => sim.close()))
})

const execSim = (extra: Record<string, unknown> = {}): Simulator => {
  const sim = simulator({ workloads: { exec: { graceMs: 300, ...extra } } })
  opened.push(sim)
  return sim
}

// Runs `sh` as the trainer's command in a one-node TrainJob.
const shJob = (name: string, script: string, spec: Record<string, unknown> = {}): KubeObject =>
  trainJob(name, { trainer: { command: ["sh", "-c", script] }, ...spec })

// Moves the sim clock in small steps, letting the processes' events in between, until `check` holds.
const until = async (sim: Simulator, check: () => boolean): Promise<void> => {
  const held = await eventually(() => {
    sim.advance(100)
    return check()
  })
  expect(held).toBe(true)
}

const podOf = (sim: Simulator, job: string): KubeObject | undefined => list(sim, "pods", `jobset.sigs.k8s.io/jobset-name=${job}`)[0]
const terminated = (pod: KubeObject | undefined): Record<string, any> | undefined =>
  ((statusOf(pod ?? {}) ?? {})["containerStatuses"] as Array<Record<string, any>> | undefined)?.[0]?.["state"]?.["terminated"]
const finished = (sim: Simulator, job: string) => () => terminated(podOf(sim, job)) !== undefined
const logOf = (sim: Simulator, job: string): Array<string> => {
  const pod = podOf(sim, job)
  return pod === undefined ? [] : sim.containerLog(pod, "node").map((line) => line.text)
}
// Whether a pid is a live process (a zombie waiting for its reaper has ended).
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"))
  } catch {
    return false
  }
}
const pidsIn = (lines: ReadonlyArray<string>): Array<number> => lines.flatMap((line) => /^pid (\d+)$/.exec(line)?.slice(1).map(Number) ?? [])

describe("exec: containers as local processes", () => {
  it("runs the command through the shell with the pod's env; its output is the log and exit 0 completes the TrainJob", async () => {
    const sim = execSim()
    const script = 'echo "hello $PET_NNODES $PET_NPROC_PER_NODE rank=$PET_NODE_RANK $PET_MASTER_ADDR:$PET_MASTER_PORT idx=$JOB_COMPLETION_INDEX"; echo to-stderr >&2'
    expect(create(sim, "trainjobs", shJob("ok", script)).code).toBe(201)
    await until(sim, () => condition(get(sim, "trainjobs", "ok"), "Complete")?.["status"] === "True")
    expect(terminated(podOf(sim, "ok"))).toMatchObject({ exitCode: 0, reason: "Completed" })
    expect((statusOf(podOf(sim, "ok") ?? {}) ?? {})["phase"]).toBe("Succeeded")
    expect(logOf(sim, "ok")).toEqual(expect.arrayContaining(["hello 1 1 rank=0 127.0.0.1:29500 idx=0", "to-stderr"]))
    expect(condition(get(sim, "jobs", "ok-node-0"), "Complete")?.["status"]).toBe("True")
    expect(condition(get(sim, "jobsets", "ok"), "Completed")?.["status"]).toBe("True")
  })

  it("each node's process gets its own rank; the TrainJob completes when every node's process has exited 0", async () => {
    const sim = execSim()
    create(sim, "trainjobs", trainJob("two", { trainer: { command: ["sh", "-c", 'echo "rank $PET_NODE_RANK of $PET_NNODES"'], numNodes: 2 } }))
    await until(sim, () => condition(get(sim, "trainjobs", "two"), "Complete")?.["status"] === "True")
    const logs = list(sim, "pods").map((pod) => sim.containerLog(pod, "node").map((line) => line.text))
    expect(logs.flat().sort()).toEqual(["rank 0 of 2", "rank 1 of 2"])
  })

  it("a command exiting 3 fails its pod (exit code 3, reason Error), its Job and its TrainJob", async () => {
    const sim = execSim()
    create(sim, "trainjobs", shJob("bad", "echo oops >&2; exit 3"))
    await until(sim, () => condition(get(sim, "trainjobs", "bad"), "Failed")?.["status"] === "True")
    expect(terminated(podOf(sim, "bad"))).toMatchObject({ exitCode: 3, reason: "Error" })
    expect((statusOf(podOf(sim, "bad") ?? {}) ?? {})["phase"]).toBe("Failed")
    expect(logOf(sim, "bad")).toContain("oops")
    expect(condition(get(sim, "jobs", "bad-node-0"), "Failed")?.["status"]).toBe("True")
    expect(condition(get(sim, "trainjobs", "bad"), "Complete")).toBeUndefined()
  })

  it("the TrainJob's activeDeadlineSeconds stops the process with SIGTERM (exit 143)", async () => {
    const sim = execSim()
    create(sim, "trainjobs", shJob("slow", "echo started; sleep 1000", { activeDeadlineSeconds: 2 }))
    await until(sim, finished(sim, "slow"))
    expect(terminated(podOf(sim, "slow"))).toMatchObject({ exitCode: 143, signal: 15, reason: "Error" })
    expect(statusOf(podOf(sim, "slow") ?? {})).toMatchObject({ phase: "Failed", reason: "DeadlineExceeded" })
    expect(condition(get(sim, "trainjobs", "slow"), "Failed")).toMatchObject({ status: "True", reason: "DeadlineExceeded" })
    expect(logOf(sim, "slow")).toEqual(["started"])
  })

  it("a process that ignores SIGTERM is killed with SIGKILL after the grace period (exit 137)", async () => {
    const sim = execSim()
    create(sim, "trainjobs", shJob("stubborn", "trap '' TERM; echo pid $$; sleep 1000", { activeDeadlineSeconds: 1 }))
    await until(sim, () => logOf(sim, "stubborn").length > 0)
    const [pid] = pidsIn(logOf(sim, "stubborn"))
    await until(sim, finished(sim, "stubborn"))
    expect(terminated(podOf(sim, "stubborn"))).toMatchObject({ exitCode: 137, signal: 9, reason: "Error" })
    expect(alive(pid ?? 0)).toBe(false)
  })

  it("stopping a TrainJob (deleting it) kills its process and every child it forked", async () => {
    const sim = execSim()
    create(sim, "trainjobs", shJob("forks", "sleep 1000 & echo pid $!; (trap '' TERM; sleep 1000) & echo pid $!; echo pid $$; wait"))
    await until(sim, () => pidsIn(logOf(sim, "forks")).length === 3)
    const pids = pidsIn(logOf(sim, "forks"))
    expect(pids.every(alive)).toBe(true)
    expect(sim.system.delete("trainjobs", "default", "forks").code).toBe(200)
    await until(sim, () => !pids.some(alive))
    expect(list(sim, "pods")).toEqual([])
  })

  it("holding a TrainJob (suspending it) kills its process", async () => {
    const sim = execSim()
    create(sim, "trainjobs", shJob("held", "echo pid $$; sleep 1000"))
    await until(sim, () => pidsIn(logOf(sim, "held")).length === 1)
    const pids = pidsIn(logOf(sim, "held"))
    const job = get(sim, "trainjobs", "held")
    expect(sim.system.update("trainjobs", { ...job, spec: { ...(job["spec"] as object), suspend: true } }).code).toBe(200)
    await until(sim, () => !pids.some(alive))
    expect(list(sim, "pods")).toEqual([])
  })

  it("a pod ends with its main process: what it left running is killed", async () => {
    const sim = execSim()
    create(sim, "trainjobs", shJob("orphan", "sleep 1000 & echo pid $!; exit 0"))
    await until(sim, () => condition(get(sim, "trainjobs", "orphan"), "Complete")?.["status"] === "True")
    const pids = pidsIn(logOf(sim, "orphan"))
    expect(pids).toHaveLength(1)
    await until(sim, () => !pids.some(alive))
  })

  it("closing the simulator leaves no process behind", async () => {
    const sim = execSim()
    create(sim, "trainjobs", shJob("left", "sleep 1000 & echo pid $!; echo pid $$; wait"))
    await until(sim, () => pidsIn(logOf(sim, "left")).length === 2)
    const pids = pidsIn(logOf(sim, "left"))
    await sim.close()
    expect(await eventually(() => !pids.some(alive))).toBe(true)
  })

  it("a SIGTERM to the simulator's own process kills every container's process group", async () => {
    const sim = execSim()
    create(sim, "trainjobs", shJob("signalled", "sleep 1000 & echo pid $!; echo pid $$; wait"))
    await until(sim, () => pidsIn(logOf(sim, "signalled")).length === 2)
    const pids = pidsIn(logOf(sim, "signalled"))
    expect(pids.every(alive)).toBe(true)
    // Another listener keeps the test runner alive (the runtime then leaves the exit to it).
    const keepAlive = () => {}
    process.on("SIGTERM", keepAlive)
    try {
      process.emit("SIGTERM", "SIGTERM")
      expect(await eventually(() => !pids.some(alive))).toBe(true)
    } finally {
      process.removeListener("SIGTERM", keepAlive)
    }
  })

  it("without exec, pods run by the clock and no process is started", () => {
    const sim = simulator()
    create(sim, "trainjobs", shJob("clock", "exit 3"))
    sim.advance(1000)
    const pod = podOf(sim, "clock") as KubeObject
    expect(sim.containerLog(pod, "node").map((l) => l.text)).toContain("+ sh -c 'exit 3'")
    sim.advance(5000)
    expect(terminated(podOf(sim, "clock"))).toMatchObject({ exitCode: 0, reason: "Completed" })
  })
})

describe("exec: how a container's process is made", () => {
  it("quotes every word of command and args for the shell, and resolves fieldRefs from the pod", () => {
    expect(commandLine({ command: ["sh", "-c", "echo 'a b'"], args: ["x y"] })).toBe(`'sh' '-c' 'echo '\\''a b'\\''' 'x y'`)
    const pod = { metadata: { name: "p", namespace: "ns", annotations: { "batch.kubernetes.io/job-completion-index": "2" } }, spec: { hostname: "h" } }
    const env = processEnv(pod, {
      env: [
        { name: "RANK", valueFrom: { fieldRef: { fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } } },
        { name: "NS", valueFrom: { fieldRef: { fieldPath: "metadata.namespace" } } },
        { name: "PET_MASTER_ADDR", value: "tj-node-0-0.tj" },
        { name: "A", value: "1" }
      ]
    })
    expect(env).toMatchObject({ RANK: "2", NS: "ns", PET_MASTER_ADDR: "127.0.0.1", A: "1", HOSTNAME: "h" })
  })
})

describe("exec through the HTTP face", () => {
  it("a TrainJob completes from a real echo, and its log (followed live) is the process's output", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sim-exec-"))
    const gate = join(dir, "go")
    const served = await serve({ controllers: { workloads: { exec: { graceMs: 300 } } } })
    try {
      const body = {
        apiVersion: "trainer.kubeflow.org/v1alpha1",
        kind: "TrainJob",
        metadata: { name: "live" },
        spec: { runtimeRef: { name: "torch-distributed" }, trainer: { command: ["sh", "-c", `echo first; while [ ! -f '${gate}' ]; do sleep 0.05; done; echo second`] } }
      }
      const created = await fetch(`${served.server.url}/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body)
      })
      expect(created.status).toBe(201)
      let pod = ""
      expect(await eventually(() => (pod = ((podOf(served.simulator, "live")?.metadata ?? {}) as Record<string, string>)["name"] ?? "") !== "" && logOf(served.simulator, "live").length > 0)).toBe(true)
      const response = await fetch(`${served.server.url}/api/v1/namespaces/default/pods/${pod}/log?follow=true`)
      expect(response.status).toBe(200)
      const reader = (response.body as ReadableStream<Uint8Array>).getReader()
      let text = ""
      const decoder = new TextDecoder()
      while (!text.includes("first\n")) {
        const chunk = await reader.read()
        if (chunk.done) break
        text += decoder.decode(chunk.value)
      }
      expect(text).toBe("first\n")
      expect(existsSync(gate)).toBe(false)
      writeFileSync(gate, "")
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value)
      expect(text).toBe("first\nsecond\n")
      expect(await eventually(() => condition(get(served.simulator, "trainjobs", "live"), "Complete")?.["status"] === "True")).toBe(true)
      const again = await fetch(`${served.server.url}/api/v1/namespaces/default/pods/${pod}/log`)
      expect(await again.text()).toBe("first\nsecond\n")
    } finally {
      await served.simulator.close()
      await served.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
