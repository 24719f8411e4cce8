// The Table columns of the kinds a TrainJob runs as and of Kueue's queues, as the real server prints
// them: Pod (kubectl's NAME READY STATUS RESTARTS AGE, IP and NODE with -o wide), Job, Event, ConfigMap
// (NAME DATA AGE), and the
// printer columns of the JobSet, LocalQueue and ClusterQueue CRDs.
import type { KubeObject } from "../Api.ts"
import { humanDuration, valueAt } from "@dispatch/kube"
import type { Column } from "./Table.ts"

const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
const list = (value: unknown): ReadonlyArray<Record<string, unknown>> => (Array.isArray(value) ? value.map(record) : [])
const field = (value: unknown, ...path: ReadonlyArray<string>): unknown => valueAt(value, path)
const text = (value: unknown): string | null => (typeof value === "string" && value !== "" ? value : null)
const count = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0)
const time = (value: unknown): number | undefined => {
  const ms = Date.parse(String(value ?? ""))
  return Number.isNaN(ms) ? undefined : ms
}
const conditionTrue = (object: KubeObject, type: string): boolean =>
  list(field(object, "status", "conditions")).some((c) => c["type"] === type && c["status"] === "True")

const column = (name: string, type: string, description: string, cell: Column["cell"], priority = 0): Column => ({ name, type, format: "", description, cell, priority })

/** kubectl's pod STATUS: the pod's reason, else a container's waiting or terminated reason, else its phase. */
export const podStatusText = (pod: KubeObject): string => {
  if (field(pod, "metadata", "deletionTimestamp") !== undefined) return "Terminating"
  let reason = text(field(pod, "status", "reason")) ?? text(field(pod, "status", "phase")) ?? "Pending"
  for (const status of list(field(pod, "status", "containerStatuses"))) {
    const waiting = text(field(status, "state", "waiting", "reason"))
    const terminated = field(status, "state", "terminated")
    if (waiting !== null) reason = waiting
    else if (terminated !== undefined) reason = text(field(terminated, "reason")) ?? `ExitCode:${count(field(terminated, "exitCode"))}`
  }
  return reason
}

const podColumns = (name: Column, age: Column): ReadonlyArray<Column> => [
  name,
  column("Ready", "string", "The aggregate readiness state of this pod for accepting traffic.", (o) => {
    const statuses = list(field(o, "status", "containerStatuses"))
    const total = Array.isArray(field(o, "spec", "containers")) ? (field(o, "spec", "containers") as Array<unknown>).length : 0
    return `${statuses.filter((s) => s["ready"] === true).length}/${total}`
  }),
  column("Status", "string", "The aggregate status of the containers in this pod.", podStatusText),
  column("Restarts", "string", "The number of times the containers in this pod have been restarted.", (o) =>
    String(list(field(o, "status", "containerStatuses")).reduce((sum, s) => sum + count(s["restartCount"]), 0))
  ),
  age,
  column("IP", "string", "The IP address assigned to the pod.", (o) => text(field(o, "status", "podIP")) ?? "<none>", 1),
  column("Node", "string", "The name of the node the pod is assigned to.", (o) => text(field(o, "spec", "nodeName")) ?? "<none>", 1)
]

const jobStatusText = (job: KubeObject): string =>
  conditionTrue(job, "Failed") ? "Failed" : conditionTrue(job, "Complete") ? "Complete" : conditionTrue(job, "Suspended") ? "Suspended" : "Running"

const jobColumns = (name: Column, age: Column): ReadonlyArray<Column> => [
  name,
  column("Status", "string", "Status of the job.", jobStatusText),
  column("Completions", "string", "The completion status of the job.", (o) => `${count(field(o, "status", "succeeded"))}/${count(field(o, "spec", "completions")) || 1}`),
  column("Duration", "string", "Time required to complete the job.", (o, now) => {
    const start = time(field(o, "status", "startTime"))
    if (start === undefined) return null
    return humanDuration((time(field(o, "status", "completionTime")) ?? now) - start)
  }),
  age
]

const eventColumns = (): ReadonlyArray<Column> => [
  column("Last Seen", "string", "Time since the event was last seen.", (o, now) => {
    const last = time(field(o, "lastTimestamp")) ?? time(field(o, "eventTime"))
    return last === undefined ? "<unknown>" : humanDuration(now - last)
  }),
  column("Type", "string", "Normal or Warning.", (o) => text(field(o, "type"))),
  column("Reason", "string", "Why the event happened.", (o) => text(field(o, "reason"))),
  column("Object", "string", "The object the event is about.", (o) =>
    `${String(field(o, "involvedObject", "kind") ?? "").toLowerCase()}/${String(field(o, "involvedObject", "name") ?? "")}`
  ),
  column("Message", "string", "What happened.", (o) => text(field(o, "message")))
]

const jobSetColumns = (name: Column, age: Column): ReadonlyArray<Column> => [
  name,
  column("TerminalState", "string", "Final state of JobSet", (o) => text(field(o, "status", "terminalState"))),
  column("Restarts", "string", "Number of restarts", (o) => (field(o, "status", "restarts") === undefined ? null : String(count(field(o, "status", "restarts"))))),
  column("Completed", "string", "JobSet completed", (o) => text(list(field(o, "status", "conditions")).find((c) => c["type"] === "Completed")?.["status"])),
  column("Suspended", "string", "JobSet suspended", (o) => (field(o, "spec", "suspend") === undefined ? null : String(field(o, "spec", "suspend") === true))),
  age
]

const queueCounts = (): ReadonlyArray<Column> => [
  column("Pending Workloads", "integer", "Number of pending workloads", (o) => count(field(o, "status", "pendingWorkloads"))),
  column("Admitted Workloads", "integer", "Number of admitted workloads that haven't finished yet.", (o) => count(field(o, "status", "admittedWorkloads")))
]

/** The columns of the kinds above, or undefined for any other kind. */
export const workloadColumns = (kind: string, name: Column, age: Column): ReadonlyArray<Column> | undefined => {
  switch (kind) {
    case "Pod":
      return podColumns(name, age)
    case "Job":
      return jobColumns(name, age)
    case "Event":
      return eventColumns()
    case "ConfigMap":
      return [name, column("Data", "string", "Data contains the configuration data.", (o) => Object.keys(record(field(o, "data"))).length + Object.keys(record(field(o, "binaryData"))).length), age]
    case "JobSet":
      return jobSetColumns(name, age)
    case "LocalQueue":
      return [name, column("ClusterQueue", "string", "Backing ClusterQueue", (o) => text(field(o, "spec", "clusterQueue"))), ...queueCounts(), age]
    case "ClusterQueue":
      return [name, column("Cohort", "string", "Cohort that this ClusterQueue belongs to", (o) => text(field(o, "spec", "cohort")) ?? text(field(o, "spec", "cohortName"))), ...queueCounts(), age]
    default:
      return undefined
  }
}
