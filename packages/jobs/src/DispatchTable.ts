// The dispatch machine written out as a table (state x event -> next state, commands), made by running the
// machine itself on one sample of each state and event, so the docs that show it cannot drift from it.
import { step, type DispatchCommand, type DispatchEvent, type DispatchState } from "./DispatchMachine.ts"
import type { RetryPolicy } from "./RetryPolicy.ts"

const faults = { refused: "refused", passing: "passing", unknown: "unknown", readOnly: "read-only" } as const
const fault = (verdict: keyof typeof faults) => ({ verdict, reason: "r", landsBy: 2 })

const sampleStates: ReadonlyArray<readonly [string, DispatchState]> = [
  ["queued (never tried)", { kind: "queued", attempts: 0, retryAt: 0, firstAt: null, faults: [] }],
  ["queued (tried before)", { kind: "queued", attempts: 1, retryAt: 0, firstAt: 0, faults: ["r"] }],
  ["claimed", { kind: "claimed", attempts: 2, firstAt: 0, faults: ["r"] }],
  ["starting", { kind: "starting", attempts: 1, firstAt: 0, faults: [] }],
  ["unknown", { kind: "unknown", attempts: 1, landsBy: 0, firstAt: 0, faults: ["r"] }],
  ["owned", { kind: "owned", attempts: 1, firstAt: 0, faults: [] }],
  ["running (queued)", { kind: "running", attempts: 1, status: "queued" }],
  ["running (started)", { kind: "running", attempts: 1, status: "started" }],
  ["holding (off the cluster)", { kind: "holding", attempts: 0, from: "queued", onCluster: false, retryAt: 0, firstAt: null, faults: [] }],
  ["holding (on the cluster)", { kind: "holding", attempts: 1, from: "started", onCluster: true, retryAt: 0, firstAt: null, faults: [] }],
  ["stopping", { kind: "stopping", attempts: 1, ends: "cancelled", status: "failed", reason: "cancelled", retryAt: 0, tries: 0 }],
  ["done (finished)", { kind: "done", attempts: 1, status: "finished", reason: null }],
  ["deleted", { kind: "deleted", attempts: 1, status: "finished" }]
]

const sampleEvents: ReadonlyArray<readonly [string, DispatchEvent]> = [
  ["cancel", { type: "cancel" }],
  ["delete", { type: "delete" }],
  ["hold", { type: "hold" }],
  ["release", { type: "release" }],
  ["rerun", { type: "rerun" }],
  ["status write: started", { type: "setStatus", change: "started" }],
  ["status write: reset", { type: "setStatus", change: "reset" }],
  ["claim", { type: "claim" }],
  ["unpreparable", { type: "unpreparable", reason: "r" }],
  ["Start ok", { type: "startOk" }],
  ...Object.entries(faults).map(([verdict, label]): readonly [string, DispatchEvent] => [`Start ${label}`, { type: "startFailed", fault: fault(verdict as keyof typeof faults) }]),
  ["Open ok", { type: "openOk" }],
  ...Object.entries(faults).map(([verdict, label]): readonly [string, DispatchEvent] => [`Open ${label}`, { type: "openFailed", fault: fault(verdict as keyof typeof faults) }]),
  ...(["Absent", "InFlight", "Held", "Queued", "Running", "Succeeded", "Failed", "Stopping"] as const).map((found): readonly [string, DispatchEvent] => [
    `Find: ${found}`,
    { type: "found", found, untilMs: 2, reason: "r" }
  ]),
  ["Find passing", { type: "findFailed", fault: fault("passing") }],
  ["Find refused", { type: "findFailed", fault: fault("refused") }],
  ["Stop: nothing left", { type: "stopped", gone: true }],
  ["Stop: not yet", { type: "stopped", gone: false }],
  ["Stop failed", { type: "stopFailed", fault: fault("passing") }],
  ["Hold ok", { type: "holdOk" }],
  ["Release ok", { type: "releaseOk" }]
]

const stateLabel = (state: DispatchState): string => {
  switch (state.kind) {
    case "running":
      return `running (${state.status})`
    case "holding":
      return `holding (${state.onCluster ? "on" : "off"} the cluster)`
    case "stopping":
      return `stopping, then ${state.ends}`
    case "done":
      return `done (${state.status})`
    default:
      return state.kind
  }
}

const commandLabel = (command: DispatchCommand): string => {
  switch (command.type) {
    case "record":
      return `record ${command.status}`
    case "retryAt":
      return "retry at"
    default:
      return command.type
  }
}

/** The machine as Markdown table rows, `| state | event | next state | commands |`, for every sample state and
 * event that changes the state or asks for something; a refused user action is shown as `refused`. */
export const dispatchTable = (policy: RetryPolicy): string => {
  const rows = ["| State | Event | Next state | Commands |", "| --- | --- | --- | --- |"]
  for (const [stateName, state] of sampleStates) {
    for (const [eventName, event] of sampleEvents) {
      const answer = step(state, event, { nowMs: 1, policy, draw: 0.5 })
      if (answer.refused !== undefined) {
        rows.push(`| ${stateName} | ${eventName} | refused (409) | |`)
        continue
      }
      if (answer.commands.length === 0 && JSON.stringify(answer.state) === JSON.stringify(state)) continue
      rows.push(`| ${stateName} | ${eventName} | ${stateLabel(answer.state)} | ${answer.commands.map(commandLabel).join(", ")} |`)
    }
  }
  return rows.join("\n")
}
