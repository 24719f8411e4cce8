// What each command is, as data: its words, summary, flags (with descriptions and defaults), the
// positional word it takes, and examples. The effect/cli command tree, the help, the usage lines and the
// shell completions are all made from this table; each command's own module, loaded only when it runs,
// reads the values.

/** How a flag takes values: one, one or more (`--runtime a b` or `--runtime a --runtime b`), or none. */
export type FlagKind = "value" | "multi" | "switch"

/** One flag of a command. */
export interface FlagSpec {
  readonly name: string
  readonly kind: FlagKind
  readonly description: string
  /** The value's placeholder in help and usage, e.g. `FILE`. */
  readonly metavar?: string
  /** A one-letter spelling, e.g. `o` for `--output`. */
  readonly short?: string
  /** Shown as required in the usage line (the command's own reader enforces it). */
  readonly required?: boolean
  /** Alternatives shown together in the usage line share a group name. */
  readonly group?: string
}

/** One example of a command's use. */
export interface ExampleSpec {
  readonly command: string
  readonly description: string
}

/** One command of the CLI. */
export interface CommandSpec {
  readonly words: ReadonlyArray<string>
  readonly summary: string
  readonly flags: ReadonlyArray<FlagSpec>
  /** The positional word the command takes, if any (e.g. a TrainJob name). */
  readonly argument?: { readonly name: string; readonly description: string; readonly choices?: ReadonlyArray<string> }
  readonly examples?: ReadonlyArray<ExampleSpec>
}

const flag = (name: string, kind: FlagKind, metavar: string, description: string, more: Partial<FlagSpec> = {}): FlagSpec => ({
  name,
  kind,
  description,
  ...(kind === "switch" ? {} : { metavar }),
  ...more
})

const outputFlag = (choices: ReadonlyArray<string>, fallback: string): FlagSpec =>
  flag("output", "value", choices.join("|"), `output format: ${choices.join(", ")} (default ${fallback})`, { short: "o" })

/** The flags of every command that talks to a cluster. */
export const clusterFlags: ReadonlyArray<FlagSpec> = [
  flag("kubeconfig", "value", "FILE", "the kubeconfig of the cluster (default: client-node's chain: KUBECONFIG, ~/.kube/config, in-cluster)", { group: "target" }),
  flag("sim", "switch", "", "an embedded simulated cluster that lives as long as the command", { group: "target" }),
  flag("context", "value", "NAME", "the kubeconfig context to use (default: its current context)"),
  flag("namespace", "value", "NS", "the namespace, overriding the backend config's", { short: "n" }),
  flag("timeout", "value", "DURATION", "give up waiting after this long, e.g. 30s, 5m (default: the config's call bounds)"),
  flag("runtime", "multi", "FILE", "runtime manifests the embedded simulator is seeded from (needs --sim; default: the bundled example)"),
  flag("exec", "switch", "", "the embedded simulator runs each pod's command as a local child process (needs --sim)"),
  flag("config", "value", "FILE", "the backend config, YAML or JSON (default: the bundled examples/config.json)"),
  outputFlag(["text", "json", "yaml"], "text")
]

const requestFlag = (required: boolean): FlagSpec =>
  flag("request", "value", "FILE", `the StartRequest, YAML or JSON${required ? "" : " (default: the bundled examples/request.json)"}`, required ? { required } : {})

/** `--job ID --submission N`, the other way to name a job than its TrainJob name. */
export const jobFlags: ReadonlyArray<FlagSpec> = [
  flag("job", "value", "ID", "the job's ID (a ULID), with --submission, instead of the TrainJob name"),
  flag("submission", "value", "N", "the submission's number, with --job")
]

/** The TrainJob name a job command takes. */
const trainJobArgument = { name: "trainjob", description: "the job's TrainJob name, dj-<job ID in lower case>-s<submission>, as dispatch prints it" }

const cluster = (name: string, summary: string, own: ReadonlyArray<FlagSpec>, examples: ReadonlyArray<ExampleSpec>): CommandSpec => ({
  words: [name],
  summary,
  flags: [...own, ...clusterFlags.map((f) => (f.name === "output" && name === "list" ? outputFlag(["text", "wide", "name", "json", "yaml"], "text") : f))],
  ...(own.some((f) => f.name === "job") ? { argument: trainJobArgument } : {}),
  examples
})

const jobExample = "dj-01jd8x2q4m7n9p3r5s6t8v0w1y-s17"

/** Every command, in the order `dispatch help` lists them. */
export const CommandSpecs = {
  demo: {
    words: ["demo"],
    summary: "render, probe, start, open and follow the example on an embedded simulator",
    flags: [
      outputFlag(["text", "json", "yaml"], "text"),
      requestFlag(false),
      flag("runtime", "multi", "FILE", "runtime manifests (default: the bundled examples/runtime.yaml)"),
      flag("config", "value", "FILE", "the backend config (default: the bundled examples/config.json)"),
      flag("speed", "value", "1-1000", "how many times faster than real time the simulator's clock runs (default 20)"),
      flag("exec", "switch", "", "run each pod's command as a local child process: the run ends when the command does")
    ],
    examples: [{ command: "dispatch demo --config examples/config-kueue.json", description: "the demo in Kueue mode" }]
  },
  demoService: {
    words: ["demo", "service"],
    summary: "the whole path: the job service dispatches a job over HTTP to an embedded simulator, then its logs and metrics",
    flags: [flag("exec", "switch", "", "the job's pod runs a real training script as a local process, which posts its logs and metrics with its report token")],
    examples: [{ command: "dispatch demo service --exec", description: "the whole path with a real workload process" }]
  },
  render: {
    words: ["render"],
    summary: "print the runtime copy and TrainJob a Start would create",
    flags: [
      requestFlag(true),
      flag("runtime", "multi", "FILE", "runtime manifests, one or more files", { required: true }),
      flag("config", "value", "FILE", "the backend config (default: the bundled examples/config.json)"),
      outputFlag(["yaml", "json", "text"], "yaml")
    ],
    examples: [{ command: "dispatch render --request examples/request.json --runtime examples/runtime.yaml", description: "the example's manifests as YAML" }]
  },
  start: cluster("start", "create the runtime copy and the TrainJob, its start gate closed", [requestFlag(true)], [
    { command: "dispatch start --sim --request examples/request.json", description: "start the example on an embedded simulator" }
  ]),
  find: cluster("find", "report the state of one submission of a job", jobFlags, [{ command: `dispatch find ${jobExample}`, description: "the state of submission 17" }, { command: "dispatch find --job 01JD8X2Q4M7N9P3R5S6T8V0W1Y --submission 17", description: "the same job by its ID and submission" }]),
  open: cluster("open", "open the start gate of a started job", jobFlags, [{ command: `dispatch open ${jobExample}`, description: "let the job run" }]),
  hold: cluster("hold", "pause a job (plain: suspend; Kueue: evict and requeue)", jobFlags, [{ command: `dispatch hold ${jobExample}`, description: "pause the job" }]),
  release: cluster("release", "resume a held job", jobFlags, [{ command: `dispatch release ${jobExample}`, description: "resume the job" }]),
  stop: cluster(
    "stop",
    "delete the job's TrainJob and runtime copy",
    [...jobFlags, flag("wait", "value", "SECONDS", "wait up to this long for everything to go (default 0: do not wait)")],
    [{ command: `dispatch stop ${jobExample} --wait 60`, description: "stop the job and wait for it to be gone" }]
  ),
  wait: cluster(
    "wait",
    "wait until a job reaches one of the states named; 1 when --timeout (default 30s) passes first",
    [...jobFlags, flag("for", "value", "STATE[,STATE]", "the states to wait for: Absent, InFlight, Held, Queued, Running, Succeeded, Failed, Stopping", { required: true })],
    [{ command: `dispatch wait ${jobExample} --for Succeeded,Failed --timeout 10m`, description: "wait for the job to end" }]
  ),
  list: cluster(
    "list",
    "list every job dispatch manages in the namespace, with its state",
    [
      flag("selector", "value", "SELECTOR", "only TrainJobs whose labels match, e.g. team=vision", { short: "l" }),
      flag("watch", "switch", "", "after the list, print each job whose state changes, until Ctrl-C or --timeout", { short: "w" })
    ],
    [
      { command: "dispatch list --sim", description: "the jobs of the config's namespace" },
      { command: "dispatch list -n ml-team -o wide -w", description: "watch every job of namespace ml-team" }
    ]
  ),
  runtimes: cluster(
    "runtimes",
    "each runtime of the config, the namespace and the cluster: on the cluster, and usable by Start (every reason if not)",
    [flag("request", "value", "FILE", "check the runtimes for this request's spec (default: the probe's one-node spec)")],
    [{ command: "dispatch runtimes --sim", description: "which runtimes the example backend can use" }]
  ),
  logs: cluster(
    "logs",
    "print the logs of a job's pods: every node's, each line prefixed [node-N], or one node's",
    [
      ...jobFlags,
      flag("follow", "switch", "", "keep printing lines as they are written, until the pods end or Ctrl-C", { short: "f" }),
      flag("node", "value", "N", "only the pod of node N (0 is the first)"),
      flag("tail", "value", "N", "only the last N lines of each pod's log"),
      flag("previous", "switch", "", "the log of the container's previous run (after a restart)"),
      flag("since", "value", "DURATION", "only lines written in the last DURATION, e.g. 30s, 5m, 1h, by the cluster's clock"),
      flag("container", "value", "NAME", "the container whose log is read (default: each pod's first)", { short: "c" })
    ],
    [{ command: `dispatch logs ${jobExample} --kubeconfig sim.kubeconfig -f`, description: "follow every node's log" }]
  ),
  probe: cluster("probe", "prove the backend's reach, write and launch gates with the preflight probe", [], [
    { command: "dispatch probe --kubeconfig kubeconfig --config examples/config.json", description: "prove a cluster's gates" }
  ]),
  capabilities: cluster("capabilities", "check that the backend can run a request's spec, creating nothing", [requestFlag(true)], [
    { command: "dispatch capabilities --sim --request examples/request.json", description: "what the example needs of the backend" }
  ]),
  simServe: {
    words: ["sim", "serve"],
    summary: "serve a simulated cluster on 127.0.0.1 for kubectl and client-node",
    flags: [
      outputFlag(["text", "json", "yaml"], "text"),
      flag("port", "value", "P", "the port to listen on (default: any free port)"),
      flag("kubeconfig-out", "value", "FILE", "where to write a kubeconfig for the server"),
      flag("runtime", "multi", "FILE", "runtime manifests to seed (TrainingRuntime, ClusterTrainingRuntime, Namespace)"),
      flag("mode", "value", "plain|kueue", "which controllers run (default plain)"),
      flag("config", "value", "FILE", "the backend config whose namespace (and Kueue queue) is served"),
      flag("read-only", "switch", "", "every request may get, list and watch, nothing else"),
      flag("fault", "multi", "RULE", "VERB:RESOURCE[:NAME]=ACTION, e.g. create:trainjobs=drop"),
      flag("run-time", "value", "S", "each training run completes S seconds after it starts (default 5)"),
      flag("exec", "switch", "", "run each pod's command as a local child process: its output is the pod's log, its exit ends the pod"),
      flag("queue-cpu", "value", "Q", "--mode kueue: the ClusterQueue's nominal CPU quota, e.g. 8 or 500m (default: not counted)"),
      flag("queue-memory", "value", "Q", "--mode kueue: the ClusterQueue's nominal memory quota, e.g. 64Gi (default: not counted)"),
      flag("queue-gpus", "value", "N", "--mode kueue: the ClusterQueue's nominal nvidia.com/gpu quota (default: not counted)"),
      flag("cluster-queue", "value", "NAME", "--mode kueue: the ClusterQueue behind the config's LocalQueue (default cluster-queue)")
    ],
    examples: [{ command: "dispatch sim serve --kubeconfig-out sim.kubeconfig --runtime examples/runtime.yaml", description: "a simulated cluster for kubectl" }]
  },
  serve: {
    words: ["serve"],
    summary: "serve the job service (Dioptra's job API) and dispatch its jobs to a cluster",
    flags: [
      outputFlag(["text", "json", "yaml"], "text"),
      flag("host", "value", "H", "the address to listen on (default 127.0.0.1)"),
      flag("port", "value", "P", "the port to listen on (default 8080)"),
      flag("data-dir", "value", "DIR", "PGlite's data directory, and with --sim the simulator's state (default dispatch-data; PGlite's unused with DATABASE_URL)"),
      flag("tokens", "value", "FILE", "a YAML or JSON list of token entries (default: one write token made for this run)"),
      flag("instance", "value", "NAME", "this process's name on its job claims (default: random)"),
      flag("log-format", "value", "text|json", "each request's access-log line on stderr: text or json (default text)"),
      flag("signup", "switch", "", "let anyone register a user (POST /api/v1/users, Dioptra's users.create)"),
      flag("default-backend", "value", "FILE", "a YAML or JSON queue backend that queues registered without one get"),
      flag("retention", "value", "D", "how long an ended job's TrainJob and runtime copy stay on the cluster (default 24h; env DISPATCH_RETENTION)"),
      flag("sweep-grace", "value", "D", "least age of a runtime copy no TrainJob owns before the sweeper deletes it (default 1h; env DISPATCH_SWEEP_GRACE)"),
      flag("kubeconfig", "value", "FILE", "dispatch to the cluster of this kubeconfig", { group: "target" }),
      flag("cluster", "switch", "", "dispatch to the cluster of client-node's default kubeconfig chain", { group: "target" }),
      flag("sim", "switch", "", "dispatch to an embedded simulated cluster", { group: "target" }),
      flag("runtime", "multi", "FILE", "runtime manifests the embedded simulator is seeded from (needs --sim)"),
      flag("config", "value", "FILE", "the embedded simulator's backend config (needs --sim)"),
      flag("exec", "switch", "", "the embedded simulator runs each pod's command as a local child process (needs --sim)"),
      flag("sim-kubeconfig-out", "value", "FILE", "serve the embedded simulator on 127.0.0.1 too, for kubectl, and write its kubeconfig here (needs --sim)")
    ],
    examples: [
      { command: "dispatch serve --sim --port 8080", description: "the job service on an embedded simulator" },
      { command: "dispatch serve --sim --sim-kubeconfig-out sim.kubeconfig", description: "the same, its cluster reachable with kubectl --kubeconfig sim.kubeconfig" }
    ]
  },
  hashToken: {
    words: ["serve", "hash-token"],
    summary: "make a job-service token and the entry that configures it",
    flags: [
      flag("name", "value", "N", "who the token is for", { required: true }),
      flag("group", "value", "G", "the group the token acts in", { required: true }),
      flag("read-only", "switch", "", "the token may read but not write")
    ]
  },
  newId: {
    words: ["new-id"],
    summary: "print a fresh JobID (a ULID) for a request's job",
    flags: [outputFlag(["text", "json", "yaml"], "text")],
    examples: [{ command: "dispatch new-id", description: "a JobID such as 01JD8X2Q4M7N9P3R5S6T8V0W1Y" }]
  },
  version: { words: ["version"], summary: "print dispatch's version", flags: [outputFlag(["text", "json", "yaml"], "text")] },
  completion: {
    words: ["completion"],
    summary: "print the shell completion script for bash, zsh or fish",
    flags: [],
    argument: { name: "shell", description: "bash, zsh or fish", choices: ["bash", "zsh", "fish"] },
    examples: [{ command: "source <(dispatch completion bash)", description: "complete dispatch's commands and flags in this bash" }]
  }
} as const satisfies Record<string, CommandSpec>

/** The spelling of a flag in usage lines. */
const spelling = (f: FlagSpec): string => {
  const name = f.short === undefined ? `--${f.name}` : `-${f.short}`
  if (f.kind === "switch") return name
  return f.kind === "multi" ? `${name} ${f.metavar} [${f.metavar} ...]` : `${name} ${f.metavar}`
}

/** The options part of a command's usage line, e.g. `--request FILE [--config FILE] [-o text|json]`. */
export const optionsOf = (spec: CommandSpec): string => {
  const parts: Array<string> = []
  const grouped = new Set<string>()
  for (const f of spec.flags) {
    if (f.group !== undefined) {
      if (grouped.has(f.group)) continue
      grouped.add(f.group)
      parts.push(`[${spec.flags.filter((g) => g.group === f.group).map(spelling).join(" | ")}]`)
      continue
    }
    parts.push(f.required === true ? spelling(f) : `[${spelling(f)}]`)
  }
  if (spec.argument !== undefined) parts.unshift(spec.flags.some((f) => f.name === "job") ? `[<${spec.argument.name}>]` : `<${spec.argument.name}>`)
  return parts.join(" ")
}

/** The usage line of a command. */
export const usageLine = (spec: CommandSpec): string => `usage: dispatch ${[...spec.words, optionsOf(spec)].filter((p) => p !== "").join(" ")}`
