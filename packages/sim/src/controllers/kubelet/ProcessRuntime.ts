// The exec runtime: each container of a pod runs as a local child process instead of by the clock. The
// image is ignored; the container's command and args run through /bin/sh with its env (fieldRefs
// resolved from the pod, as the kubelet's downward API does) and working directory. Its stdout and
// stderr are the container's log; its exit code, or 128 + the signal that killed it, is its status.
// Each process leads its own process group, and stopping a container signals the whole group (SIGTERM,
// then SIGKILL after the grace period), as a container runtime kills a container's every process.
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { constants as osConstants } from "node:os"
import type { KubeObject } from "../../Api.ts"
import { keyOf } from "../shared/ChangeQueue.ts"
import type { ContainerRuntime, PodEnd, RunFate } from "./ContainerRuntime.ts"
import { asArray, asNumber, asRecord, asString, at, uidOf, type JsonRecord } from "../shared/KubeFields.ts"
import type { ExitCode } from "./PodStatuses.ts"
import type { ExecOptions } from "../Options.ts"
import type { LogLine } from "./SyntheticLogs.ts"

/** The host variables a container's process sees besides its own env (a container sees none of the rest). */
const hostVariables = ["PATH", "HOME", "LANG", "TMPDIR"] as const

/** The signals that end a Node process by default, which must take the containers with it. */
const endingSignals: ReadonlyArray<NodeJS.Signals> = ["SIGINT", "SIGTERM", "SIGHUP"]

/** The local stand-in for the torch master's DNS name: every pod's process runs on this host. */
const localMasterAddr = "127.0.0.1"

interface Running {
  readonly uid: string
  readonly container: string
  readonly child: ChildProcess
  readonly lines: Array<LogLine>
  exit?: ExitCode
  closed: boolean
  killTimer?: NodeJS.Timeout
}

// A process group outlives a simulator killed with SIGKILL, which runs no handler. So each container's
// shell first starts a watchdog in the container's group that waits on a pipe only the simulator holds
// open (fd 3): when the simulator ends, however it ends, the pipe reads end-of-file and the watchdog kills
// the group. The command itself runs without the pipe, and the watchdog's output goes nowhere, so the
// container's log and exit are the command's alone.
const lifeline = "exec 4<&3 3<&-; (read -r _ <&4; kill -KILL 0) </dev/null >/dev/null 2>&1 & exec 4<&-; "

const quoted = (word: string): string => `'${word.replaceAll("'", "'\\''")}'`

// A fieldRef's value from the pod, for the paths the downward API offers as env.
const fieldValue = (pod: KubeObject, path: string): string => {
  const keyed = /^metadata\.(annotations|labels)\['(.*)'\]$/.exec(path)
  if (keyed !== null) return asString(at(pod, "metadata", keyed[1] ?? "", keyed[2] ?? "")) ?? ""
  const direct: Record<string, ReadonlyArray<string>> = {
    "metadata.name": ["metadata", "name"],
    "metadata.namespace": ["metadata", "namespace"],
    "metadata.uid": ["metadata", "uid"],
    "spec.nodeName": ["spec", "nodeName"],
    "spec.serviceAccountName": ["spec", "serviceAccountName"],
    "status.podIP": ["status", "podIP"],
    "status.hostIP": ["status", "hostIP"]
  }
  const route = direct[path]
  return route === undefined ? "" : String(at(pod, ...route) ?? "")
}

/** The env of `container` in `pod` as its process sees it: the host's basics, then the container's own, in order. */
export const processEnv = (pod: KubeObject, container: JsonRecord): Record<string, string> => {
  const env: Record<string, string> = { HOSTNAME: asString(at(pod, "spec", "hostname")) ?? asString(at(pod, "metadata", "name")) ?? "" }
  for (const name of hostVariables) {
    const value = process.env[name]
    if (value !== undefined) env[name] = value
  }
  for (const entry of asArray(container["env"])) {
    const name = asString(at(entry, "name"))
    if (name === undefined) continue
    const fieldPath = asString(at(entry, "valueFrom", "fieldRef", "fieldPath"))
    env[name] = fieldPath !== undefined ? fieldValue(pod, fieldPath) : (asString(at(entry, "value")) ?? "")
  }
  if (env["PET_MASTER_ADDR"] !== undefined) env["PET_MASTER_ADDR"] = localMasterAddr
  return env
}

/** The shell line a container's command and args make (empty when the image's entrypoint would run). */
export const commandLine = (container: JsonRecord): string =>
  [...asArray(container["command"]), ...asArray(container["args"])].map((word) => quoted(String(word))).join(" ")

const exitOf = (code: number | null, signal: NodeJS.Signals | null): ExitCode =>
  signal !== null ? { exitCode: 128 + ((osConstants.signals as Readonly<Record<string, number>>)[signal] ?? 0), signal } : { exitCode: code ?? 0 }

// Signals the process group `pid` leads; a group already gone is not an error.
const signalGroup = (pid: number | undefined, signal: NodeJS.Signals): void => {
  if (pid === undefined) return
  try {
    process.kill(-pid, signal)
  } catch {
    // ESRCH: every process of the group has ended.
  }
}

/** A runtime that runs every container as a local child process, reading the clock through `now`. */
export const processRuntime = (options: ExecOptions, now: () => number): ContainerRuntime => {
  const pods = new Map<string, Array<Running>>()
  // Containers of pods already gone whose processes are still being stopped.
  const lingering = new Set<Running>()
  const listeners: Array<(key: string) => void> = []
  const shell = options.shell ?? "/bin/sh"
  // No process outlives the simulator's own process, even when nobody closes the runtime: the groups are
  // their own, so a Ctrl-C or SIGTERM meant for the simulator does not reach them by itself.
  const killAll = () => {
    for (const r of [...[...pods.values()].flat(), ...lingering]) signalGroup(r.child.pid, "SIGKILL")
  }
  const onSignal = (signal: NodeJS.Signals) => {
    killAll()
    // Alone in listening, this handler must not swallow the signal: it takes the default action again.
    if (process.listenerCount(signal) === 1) {
      unlisten()
      process.kill(process.pid, signal)
    }
  }
  const unlisten = () => {
    process.removeListener("exit", killAll)
    for (const signal of endingSignals) process.removeListener(signal, onSignal)
  }
  process.once("exit", killAll)
  for (const signal of endingSignals) process.on(signal, onSignal)

  const stopPod = (running: ReadonlyArray<Running>, graceMs: number): void => {
    for (const r of running) {
      if (r.closed || r.killTimer !== undefined) continue
      signalGroup(r.child.pid, "SIGTERM")
      r.killTimer = setTimeout(() => signalGroup(r.child.pid, "SIGKILL"), graceMs)
      r.killTimer.unref()
    }
  }

  const graceOf = (pod: KubeObject): number => {
    const seconds = asNumber(at(pod, "spec", "terminationGracePeriodSeconds"))
    return seconds === undefined ? (options.graceMs ?? 30_000) : seconds * 1000
  }

  const launch = (pod: KubeObject, key: string, container: JsonRecord): Running => {
    const name = asString(container["name"]) ?? ""
    const lines: Array<LogLine> = []
    const say = (text: string) => lines.push({ time: now(), text })
    const asked = asString(container["workingDir"])
    const cwd = asked !== undefined && existsSync(asked) ? asked : (options.workdir ?? process.cwd())
    if (asked !== undefined && asked !== cwd) say(`[exec] workingDir ${asked} does not exist here; running in ${cwd}`)
    const line = commandLine(container)
    // With no command the image's entrypoint would run, and there is no image here.
    // `exec`: the command itself becomes the process (as a container's PID 1 is), so signals reach it
    // and its own exit status is the container's.
    const script = line === "" ? "echo '[exec] the container has no command; its image entrypoint cannot run without the image' >&2; exit 127" : `exec ${line}`
    const child = spawn(shell, ["-c", `${lifeline}${script}`], { cwd, env: processEnv(pod, container), detached: true, stdio: ["ignore", "pipe", "pipe", "pipe"] })
    const running: Running = { uid: uidOf(pod), container: name, child, lines, closed: false }
    let partial = { stdout: "", stderr: "" }
    const reader = (stream: "stdout" | "stderr") => (chunk: Buffer) => {
      const parts = (partial[stream] + chunk.toString("utf8")).split("\n")
      partial = { ...partial, [stream]: parts.pop() ?? "" }
      for (const part of parts) say(part)
    }
    child.stdout?.on("data", reader("stdout"))
    child.stderr?.on("data", reader("stderr"))
    const finish = (exit: ExitCode) => {
      if (running.closed) return
      for (const rest of [partial.stdout, partial.stderr]) if (rest !== "") say(rest)
      running.exit ??= exit
      running.closed = true
      if (running.killTimer !== undefined) clearTimeout(running.killTimer)
      lingering.delete(running)
      for (const listener of listeners) listener(key)
    }
    child.on("error", (error) => {
      say(`[exec] could not start: ${error.message}`)
      finish({ exitCode: 127 })
    })
    // When the main process ends the container ends: what it left behind in its group is killed, as
    // the container runtime does, so the pipes close and the log is complete.
    child.on("exit", (code, signal) => {
      running.exit ??= exitOf(code, signal)
      signalGroup(child.pid, "SIGKILL")
    })
    child.on("close", (code, signal) => finish(exitOf(code, signal)))
    return running
  }

  return {
    start(pod) {
      const key = keyOf(pod)
      if (pods.get(key)?.[0]?.uid === uidOf(pod)) return
      const containers = asArray(at(pod, "spec", "containers")).flatMap((entry) => {
        const record = asRecord(entry)
        return record === undefined ? [] : [record]
      })
      pods.set(key, containers.map((container) => launch(pod, key, container)))
    },
    ended(pod: KubeObject, fate: RunFate | undefined): PodEnd | undefined {
      const running = pods.get(keyOf(pod))?.filter((r) => r.uid === uidOf(pod))
      if (running === undefined || running.length === 0) return undefined
      // The run ended (its deadline passed, or its JobSet finished): what still runs is stopped.
      if (fate !== undefined) stopPod(running, graceOf(pod))
      if (!running.every((r) => r.closed)) return undefined
      const deadline = fate?.reason === "DeadlineExceeded"
      return {
        containers: Object.fromEntries(running.map((r) => [r.container, r.exit ?? { exitCode: 0 }])),
        ...(deadline ? { reason: fate.reason } : {}),
        ...(deadline && fate.message !== undefined ? { message: fate.message } : {})
      }
    },
    stop(pod) {
      const key = keyOf(pod)
      const running = pods.get(key)
      if (running === undefined || running[0]?.uid !== uidOf(pod)) return
      stopPod(running, graceOf(pod))
      pods.delete(key)
      // Its processes still end (the timers and close handlers hold them); only the log is let go.
      for (const r of running) if (!r.closed) lingering.add(r)
    },
    log(pod, container) {
      return pods.get(keyOf(pod))?.find((r) => r.uid === uidOf(pod) && r.container === container)?.lines ?? []
    },
    onEnded(listener) {
      listeners.push(listener)
    },
    async close() {
      const all = [...[...pods.values()].flat(), ...lingering]
      for (const r of all) signalGroup(r.child.pid, "SIGKILL")
      await Promise.all(all.map((r) => (r.closed ? undefined : new Promise<void>((done) => r.child.once("close", () => done())))))
      pods.clear()
      lingering.clear()
      unlisten()
    }
  }
}
