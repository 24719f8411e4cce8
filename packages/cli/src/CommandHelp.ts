// What `dispatch help` says of each command: its words, its options and a one-line summary. Kept apart
// from the commands themselves so that help, and every command, loads only the modules it runs.
import { clusterUsage } from "./ClusterArgs.ts"
import { demoUsage } from "./DemoArgs.ts"
import { renderUsage } from "./RenderArgs.ts"
import { hashTokenUsage, serveUsage } from "./ServeArgs.ts"
import { simServeUsage } from "./SimServeArgs.ts"

/** The help of one command. */
export interface CommandHelp {
  readonly words: ReadonlyArray<string>
  readonly options: string
  readonly summary: string
}

const optionsOf = (usage: string, name: string): string => usage.replace(`usage: dispatch ${name} `, "")

const cluster = (name: string, own: string, summary: string): CommandHelp => ({
  words: [name],
  options: `${own}${own === "" ? "" : " "}${clusterUsage}`,
  summary
})

/** The help of every command, in the order `dispatch help` lists them. */
export const CommandHelps = {
  demo: { words: ["demo"], options: optionsOf(demoUsage, "demo"), summary: "render, probe, start, open and follow the example on an embedded simulator" },
  demoService: { words: ["demo", "service"], options: "", summary: "the whole path: the job service dispatches a job over HTTP to an embedded simulator, then its logs and metrics" },
  render: { words: ["render"], options: optionsOf(renderUsage, "render"), summary: "print the runtime copy and TrainJob a Start would create" },
  start: cluster("start", "--request R", "create the runtime copy and the TrainJob, its start gate closed"),
  find: cluster("find", "--job ID --submission N", "report the state of one submission of a job"),
  open: cluster("open", "--job ID --submission N", "open the start gate of a started job"),
  hold: cluster("hold", "--job ID --submission N", "pause a job (plain: suspend; Kueue: evict and requeue)"),
  release: cluster("release", "--job ID --submission N", "resume a held job"),
  stop: cluster("stop", "--job ID --submission N [--wait SECONDS]", "delete the job's TrainJob and runtime copy"),
  probe: cluster("probe", "", "prove the backend's reach, write and launch gates with the preflight probe"),
  capabilities: cluster("capabilities", "--request R", "check that the backend can run a request's spec, creating nothing"),
  simServe: { words: ["sim", "serve"], options: optionsOf(simServeUsage, "sim serve"), summary: "serve a simulated cluster on 127.0.0.1 for kubectl and client-node" },
  serve: { words: ["serve"], options: optionsOf(serveUsage, "serve"), summary: "serve the job service (Dioptra's job API) and dispatch its jobs to a cluster" },
  hashToken: { words: ["serve", "hash-token"], options: optionsOf(hashTokenUsage, "serve hash-token"), summary: "make a job-service token and the entry that configures it" }
} as const satisfies Record<string, CommandHelp>

/** The usage line of a command. */
export const usageLine = (help: CommandHelp): string => `usage: dispatch ${help.words.join(" ")} ${help.options}`
