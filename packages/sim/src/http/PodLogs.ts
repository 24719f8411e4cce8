// The pods/log subresource: a pod's container log as plain text, as `kubectl logs` reads it, with
// container, follow, tailLines, sinceSeconds, sinceTime, timestamps, limitBytes and previous. The
// pod is read through the simulator (auth, as `get pods/log`, and the fault plan apply as to a get); the lines are its
// log as the simulator's containers wrote it (synthetic on the clock, or a process's output with exec). A followed log is polled until the container exits, the pod
// goes, or the client leaves.
import type { ServerResponse } from "node:http"
import { type ApiResponse, type Impersonation, type KubeObject, type LogLine, statusBody } from "../Api.ts"
import type { ServedSimulator } from "./ServedSimulator.ts"
import { readQuery } from "./QueryParams.ts"
import { sendJson, serveOutcome, type Timers } from "./Reply.ts"

/** Which pod's log, and how it is asked for. */
export interface PodLogCall {
  readonly version: string
  readonly namespace: string
  readonly name: string
  readonly query: URLSearchParams
  readonly token?: string | undefined
  readonly impersonate?: Impersonation | undefined
}

const badRequest = (message: string): ApiResponse => ({ code: 400, body: statusBody(400, "BadRequest", message) })

/** The lines a container of a pod has written by a clock time. */
export type ContainerLog = (pod: KubeObject, container: string, now: number) => ReadonlyArray<LogLine>

// The state the kubelet last wrote for a container (running, waiting or terminated), if any.
const containerState = (pod: KubeObject, container: string): Record<string, unknown> | undefined => {
  const statuses = (pod["status"] as { containerStatuses?: unknown } | undefined)?.containerStatuses
  const entry = Array.isArray(statuses) ? (statuses as ReadonlyArray<Record<string, unknown> | null>).find((s) => s?.["name"] === container) : undefined
  const state = entry?.["state"]
  return typeof state === "object" && state !== null ? (state as Record<string, unknown>) : undefined
}

const containersOf = (pod: KubeObject): ReadonlyArray<string> => {
  const spec = pod["spec"] as { containers?: ReadonlyArray<{ name?: unknown }> } | undefined
  return (spec?.containers ?? []).map((c) => String(c.name ?? ""))
}

// PodLogOptions' query parameters, by the type apimachinery's conversion gives each.
const logParams = {
  container: "string",
  follow: "boolean",
  previous: "boolean",
  timestamps: "boolean",
  tailLines: "int64",
  sinceSeconds: "int64",
  limitBytes: "int64",
  sinceTime: "time"
} as const

interface LogRequest {
  readonly container: string
  readonly follow: boolean
  readonly tail: number | undefined
  readonly since: number | undefined
  readonly timestamps: boolean
  readonly limitBytes: number | undefined
}

// Every reason the query or the pod's state refuses the log, as the API server words them.
const decide = (pod: KubeObject, query: URLSearchParams, now: number): LogRequest | ApiResponse => {
  const name = String((pod.metadata as { name?: unknown } | undefined)?.name ?? "")
  const containers = containersOf(pod)
  const { values: options, problems: unreadable } = readQuery(query, logParams)
  if (unreadable.length > 0) return badRequest(unreadable.join("; "))
  const asked = options.container ?? ""
  const container = asked === "" ? (containers.length === 1 ? containers[0] ?? "" : "") : asked
  if (container === "") return badRequest(`a container name must be specified for pod ${name}, choose one of: [${containers.join(" ")}]`)
  if (!containers.includes(container)) return badRequest(`container ${container} is not valid for pod ${name}`)
  const { tailLines: tail, sinceSeconds, limitBytes, sinceTime } = options
  // ValidatePodLogOptions' ranges and words.
  const problems = [
    ...(tail !== undefined && tail < 0 ? [`tailLines: Invalid value: ${tail}: must be greater than or equal to 0`] : []),
    ...(limitBytes !== undefined && limitBytes < 1 ? [`limitBytes: Invalid value: ${limitBytes}: must be greater than 0`] : []),
    ...(sinceSeconds !== undefined && sinceTime !== undefined
      ? ["Forbidden: at most one of `sinceTime` or `sinceSeconds` may be specified"]
      : sinceSeconds !== undefined && sinceSeconds < 1
        ? [`sinceSeconds: Invalid value: ${sinceSeconds}: must be greater than 0`]
        : [])
  ]
  if (problems.length > 0) return { code: 422, body: statusBody(422, "Invalid", `PodLogOptions "${name}" is invalid: ${problems.join(", ")}`) }
  if (options.previous === true) return badRequest(`previous terminated container "${container}" in pod "${name}" not found`)
  const state = containerState(pod, container)
  if (state === undefined || state["waiting"] !== undefined) {
    return badRequest(`container "${container}" in pod "${name}" is waiting to start: ContainerCreating`)
  }
  return {
    container,
    follow: options.follow === true,
    tail,
    since: sinceSeconds !== undefined ? now - sinceSeconds * 1000 : sinceTime,
    timestamps: options.timestamps === true,
    limitBytes
  }
}

const render = (line: LogLine, timestamps: boolean): string =>
  `${timestamps ? `${new Date(line.time).toISOString().replace(/\.(\d{3})Z$/, ".$1000000Z")} ` : ""}${line.text}\n`

const isExited = (pod: KubeObject | undefined, container: string): boolean =>
  pod === undefined || containerState(pod, container)?.["terminated"] !== undefined

/** Serves GET .../pods/{name}/log. */
export const servePodLog = (
  res: ServerResponse,
  simulator: Pick<ServedSimulator, "handle" | "now" | "containerLog">,
  call: PodLogCall,
  timers: Timers,
  fallbackLog: ContainerLog,
  pollMs = 100
): void => {
  const read = () => simulator.handle({
    verb: "get",
    group: "",
    version: call.version,
    resource: "pods",
    namespace: call.namespace,
    name: call.name,
    subresource: "log",
    ...(call.token === undefined ? {} : { token: call.token }),
    ...(call.impersonate === undefined ? {} : { impersonate: call.impersonate })
  })
  serveOutcome(res, read(), timers, (response) => {
    if (response.code >= 300) return sendJson(res, response)
    const pod = response.body as KubeObject
    const request = decide(pod, call.query, simulator.now())
    if ("code" in request) return sendJson(res, request)
    // A wrapper that forwards no containerLog serves the fallback (the synthetic log), as before exec existed.
    const logOf = (current: KubeObject) => simulator.containerLog?.(current, request.container) ?? fallbackLog(current, request.container, simulator.now())
    const selected = (lines: ReadonlyArray<LogLine>) => lines.filter((line) => request.since === undefined || line.time >= request.since)
    const first = selected(logOf(pod))
    const shown = request.tail === undefined ? first : first.slice(Math.max(0, first.length - request.tail))
    let budget = request.limitBytes ?? Number.POSITIVE_INFINITY
    let sent = first.length
    const write = (lines: ReadonlyArray<LogLine>): boolean => {
      for (const line of lines) {
        const text = render(line, request.timestamps)
        if (Buffer.byteLength(text) > budget) {
          res.write(Buffer.from(text).subarray(0, budget))
          budget = 0
          return false
        }
        budget -= Buffer.byteLength(text)
        res.write(text)
      }
      return true
    }
    res.writeHead(200, { "Content-Type": "text/plain", ...(request.follow ? { "Transfer-Encoding": "chunked" } : {}) })
    if (!write(shown) || !request.follow || isExited(pod, request.container)) return void res.end()
    let timer: { cancel(): void } | undefined
    const poll = () => {
      const again = read()
      const current = again.kind === "answered" && again.response.code === 200 ? (again.response.body as KubeObject) : undefined
      const uid = (pod.metadata as { uid?: unknown } | undefined)?.uid
      const same = current !== undefined && (current.metadata as { uid?: unknown } | undefined)?.uid === uid
      const lines = same ? selected(logOf(current)) : []
      const more = write(lines.slice(sent))
      sent = Math.max(sent, lines.length)
      if (!more || !same || isExited(current, request.container)) return void res.end()
      timer = timers.after(pollMs, poll)
    }
    res.on("close", () => timer?.cancel())
    timer = timers.after(pollMs, poll)
  })
}
