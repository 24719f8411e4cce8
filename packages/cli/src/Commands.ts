// Every command of the CLI, declared once: its words, summary, flags, positional word and examples. Each
// flag is an effect/cli Flag with its type, placeholder, description and default; the command tree that
// reads the line, each command's values, the help, the usage lines, the shell completions and the flag
// reference in docs/cli.md are all made from these declarations.
import { Option } from "effect"
import { Argument, Flag } from "effect/cli"
import { parseDuration } from "@dispatch/kube"
import { ServeSettings, settingsHelp, settingFlags } from "./ServeSettings.ts"

/** A command's flags, by name, in the order help lists them. */
export type Flags = Readonly<Record<string, Flag.Flag<unknown>>>

/** One example of a command's use. */
export interface Example {
  readonly command: string
  readonly description: string
}

/** One command of the CLI. */
export interface CommandDeclaration<F extends Flags = Flags> {
  readonly words: ReadonlyArray<string>
  readonly summary: string
  readonly flags: F
  /** Flags that are alternatives to one another, shown together in the usage line (`[--kubeconfig FILE | --sim]`). */
  readonly alternatives?: ReadonlyArray<string>
  /** The positional word the command takes, if any (e.g. a TrainJob name). */
  readonly argument?: Argument.Argument<unknown>
  readonly examples?: ReadonlyArray<Example>
  /** Lines `--help` shows after the flags and examples (e.g. `dispatch serve`'s settings with their environment variables). */
  readonly helpNotes?: ReadonlyArray<string>
}

// ---------------------------------------------------------------------------------------------------
// The kinds of flag the commands take

const described = <A>(flag: Flag.Flag<A>, metavar: string, description: string): Flag.Flag<A> =>
  flag.pipe(Flag.withMetavar(metavar), Flag.withDescription(description))

/** A value that must be given. */
const required = (name: string, metavar: string, description: string): Flag.Flag<string> => described(Flag.String(name), metavar, description)

/** A value that may be left out. */
const optional = (name: string, metavar: string, description: string): Flag.Flag<Option.Option<string>> => Flag.optional(required(name, metavar, description))

/** Zero or more values (`--runtime a b` or `--runtime a --runtime b`). */
const several = (name: string, metavar: string, description: string, least = 0): Flag.Flag<ReadonlyArray<string>> =>
  described(Flag.String(name), metavar, description).pipe(Flag.atLeast(least))

/** A switch: off unless given. */
const toggle = (name: string, description: string): Flag.Flag<boolean> => Flag.Boolean(name).pipe(Flag.withDescription(description), Flag.withDefault(false))

/** One of a fixed set of words; its placeholder is the set (`text|json`). */
const oneOf = <const C extends ReadonlyArray<string>>(name: string, choices: C, fallback: C[number], description: string): Flag.Flag<C[number]> =>
  described(Flag.Literals(name, choices), choices.join("|"), description).pipe(Flag.withDefault(fallback))

/** A value read by `read`, which is undefined when the text is not one; `expected` says what it must be. */
const reading = <A>(name: string, metavar: string, description: string, read: (text: string) => A | undefined, expected: string): Flag.Flag<A> =>
  required(name, metavar, description).pipe(Flag.filterMap((text) => Option.fromUndefinedOr(read(text)), () => expected))

/** A whole number of at most `digits` digits, within [min, max]. */
const wholeNumber = (digits: number, min = 0, max = Number.MAX_SAFE_INTEGER) => (text: string): number | undefined =>
  new RegExp(`^\\d{1,${digits}}$`).test(text) && Number(text) >= min && Number(text) <= max ? Number(text) : undefined

/** A duration as kubectl spells it (`30s`, `5m`, `1h`), in milliseconds; zero only where `zero` allows it. */
const duration = (zero: boolean) => (text: string): number | undefined => {
  const ms = parseDuration(text)
  return ms === undefined || (ms === 0 && !zero) ? undefined : ms
}

/** A quantity as a ClusterQueue's nominalQuota takes it (Kubernetes' quantity form): 8, 500m, 1.5, 64Gi, 2G, 1e3. */
const quantity = (text: string): string | undefined => (/^\d+(\.\d+)?([eE]\d+|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/.test(text) ? text : undefined)

/** A TCP port. */
const port = (fallback: number, description: string): Flag.Flag<number> =>
  reading("port", "P", description, (text) => (/^\d+$/.test(text) && Number(text) <= 65535 ? Number(text) : undefined), "a port number (0-65535)").pipe(Flag.withDefault(fallback))

/** `-o`/`--output`, among `choices`. */
const output = <const C extends ReadonlyArray<string>>(choices: C, fallback: C[number]) =>
  oneOf("output", choices, fallback, `output format: ${choices.join(", ")} (default ${fallback})`).pipe(Flag.withAlias("o"))

const formats = ["text", "json", "yaml"] as const

/** The speed `dispatch demo` runs at unless told otherwise: a 5 s simulated run takes a quarter of a second. */
export const DEFAULT_SPEED = 20

/** The fastest speed accepted: beyond it the simulator's controllers would step more than the terminal can show. */
export const MAX_SPEED = 1000

// ---------------------------------------------------------------------------------------------------
// The flags several commands share

/** The flags of every command that talks to a cluster. */
const clusterFlags = {
  kubeconfig: optional("kubeconfig", "FILE", "the kubeconfig of the cluster (default: client-node's chain: KUBECONFIG, ~/.kube/config, in-cluster)"),
  sim: toggle("sim", "an embedded simulated cluster that lives as long as the command"),
  context: optional("context", "NAME", "the kubeconfig context to use (default: its current context)"),
  namespace: optional("namespace", "NS", "the namespace, overriding the backend config's").pipe(Flag.withAlias("n")),
  timeout: Flag.optional(reading("timeout", "DURATION", "give up waiting after this long, e.g. 30s, 5m (default: the config's call bounds)", duration(false), "a duration (e.g. 30s, 5m, 1h)")),
  runtime: several("runtime", "FILE", "runtime manifests the embedded simulator is seeded from (needs --sim; default: the bundled example)"),
  exec: toggle("exec", "the embedded simulator runs each pod's command as a local child process (needs --sim)"),
  config: optional("config", "FILE", "the backend config, YAML or JSON (default: the bundled examples/config.json)"),
  output: output(formats, "text")
}

/** `--job ID --submission N`, the other way to name a job than its TrainJob name. */
const jobFlags = {
  job: optional("job", "ID", "the job's ID (a ULID), with --submission, instead of the TrainJob name"),
  submission: Flag.optional(reading("submission", "N", "the submission's number, with --job", wholeNumber(9), "a whole number"))
}

const requiredRequest = required("request", "FILE", "the StartRequest, YAML or JSON")
const bundledRequest = optional("request", "FILE", "the StartRequest, YAML or JSON (default: the bundled examples/request.json)")

/** The TrainJob name a job command takes. */
const trainJob = Argument.String("trainjob").pipe(
  Argument.withDescription("the job's TrainJob name, dj-<job ID in lower case>-s<submission>, as dispatch prints it"),
  Argument.optional
)

const cluster = <F extends Flags, O extends Flag.Flag<string> = typeof clusterFlags.output>(name: string, summary: string, own: F, examples: ReadonlyArray<Example>, outputFlag?: O) => ({
  words: [name],
  summary,
  flags: { ...own, ...clusterFlags, output: (outputFlag ?? clusterFlags.output) as O },
  alternatives: ["kubeconfig", "sim"],
  ...("job" in own ? { argument: trainJob } : {}),
  examples
})

const jobExample = "dj-01jd8x2q4m7n9p3r5s6t8v0w1y-s17"

/** The states `dispatch wait --for` takes. */
const waitFor = required("for", "STATE[,STATE]", "the states to wait for: Absent, InFlight, Held, Queued, Running, Succeeded, Failed, Stopping")

/** The formats of `dispatch list`: kubectl's, with `wide` and `name`. */
export const ListFormats = ["text", "wide", "name", "json", "yaml"] as const

/** Every command, in the order `dispatch help` lists them. */
export const Commands = {
  demo: {
    words: ["demo"],
    summary: "render, probe, start, open and follow the example on an embedded simulator",
    flags: {
      output: output(formats, "text"),
      request: bundledRequest,
      runtime: several("runtime", "FILE", "runtime manifests (default: the bundled examples/runtime.yaml)"),
      config: optional("config", "FILE", "the backend config (default: the bundled examples/config.json)"),
      speed: reading("speed", `1-${MAX_SPEED}`, `how many times faster than real time the simulator's clock runs (default ${DEFAULT_SPEED})`, wholeNumber(9, 1, MAX_SPEED), `a whole number from 1 to ${MAX_SPEED}`).pipe(Flag.withDefault(DEFAULT_SPEED)),
      exec: toggle("exec", "run each pod's command as a local child process: the run ends when the command does")
    },
    examples: [{ command: "dispatch demo --config examples/config-kueue.json", description: "the demo in Kueue mode" }]
  },
  demoService: {
    words: ["demo", "service"],
    summary: "the whole path: the job service dispatches a job over HTTP to an embedded simulator, then its logs and metrics",
    flags: { exec: toggle("exec", "the job's pod runs a real training script as a local process, which posts its logs and metrics with its report token") },
    examples: [{ command: "dispatch demo service --exec", description: "the whole path with a real workload process" }]
  },
  render: {
    words: ["render"],
    summary: "print the runtime copy and TrainJob a Start would create",
    flags: {
      request: requiredRequest,
      runtime: several("runtime", "FILE", "runtime manifests, one or more files", 1),
      config: optional("config", "FILE", "the backend config (default: the bundled examples/config.json)"),
      output: output(["yaml", "json", "text"], "yaml")
    },
    examples: [{ command: "dispatch render --request examples/request.json --runtime examples/runtime.yaml", description: "the example's manifests as YAML" }]
  },
  start: cluster("start", "create the runtime copy and the TrainJob, its start gate closed", { request: requiredRequest }, [
    { command: "dispatch start --sim --request examples/request.json", description: "start the example on an embedded simulator" }
  ]),
  find: cluster("find", "report the state of one submission of a job", jobFlags, [
    { command: `dispatch find ${jobExample}`, description: "the state of submission 17" },
    { command: "dispatch find --job 01JD8X2Q4M7N9P3R5S6T8V0W1Y --submission 17", description: "the same job by its ID and submission" }
  ]),
  open: cluster("open", "open the start gate of a started job", jobFlags, [{ command: `dispatch open ${jobExample}`, description: "let the job run" }]),
  hold: cluster("hold", "pause a job (plain: suspend; Kueue: evict and requeue)", jobFlags, [{ command: `dispatch hold ${jobExample}`, description: "pause the job" }]),
  release: cluster("release", "resume a held job", jobFlags, [{ command: `dispatch release ${jobExample}`, description: "resume the job" }]),
  stop: cluster(
    "stop",
    "delete the job's TrainJob and runtime copy",
    { ...jobFlags, wait: reading("wait", "SECONDS", "wait up to this long for everything to go (default 0: do not wait)", wholeNumber(5), "a whole number of seconds").pipe(Flag.withDefault(0)) },
    [{ command: `dispatch stop ${jobExample} --wait 60`, description: "stop the job and wait for it to be gone" }]
  ),
  wait: cluster("wait", "wait until a job reaches one of the states named; 1 when --timeout (default 30s) passes first", { ...jobFlags, for: waitFor }, [
    { command: `dispatch wait ${jobExample} --for Succeeded,Failed --timeout 10m`, description: "wait for the job to end" }
  ]),
  list: cluster(
    "list",
    "list every job dispatch manages in the namespace, with its state",
    {
      selector: optional("selector", "SELECTOR", "only TrainJobs whose labels match, e.g. team=vision").pipe(Flag.withAlias("l")),
      watch: Flag.Boolean("watch").pipe(Flag.withDescription("after the list, print each job whose state changes, until Ctrl-C or --timeout"), Flag.withAlias("w"), Flag.withDefault(false))
    },
    [
      { command: "dispatch list --sim", description: "the jobs of the config's namespace" },
      { command: "dispatch list -n ml-team -o wide -w", description: "watch every job of namespace ml-team" }
    ],
    output(ListFormats, "text")
  ),
  runtimes: cluster(
    "runtimes",
    "each runtime of the config, the namespace and the cluster: on the cluster, and usable by Start (every reason if not)",
    { request: optional("request", "FILE", "check the runtimes for this request's spec (default: the probe's one-node spec)") },
    [{ command: "dispatch runtimes --sim", description: "which runtimes the example backend can use" }]
  ),
  logs: cluster(
    "logs",
    "print the logs of a job's pods: every node's, each line prefixed [node-N], or one node's",
    {
      ...jobFlags,
      follow: Flag.Boolean("follow").pipe(Flag.withDescription("keep printing lines as they are written, until the pods end or Ctrl-C"), Flag.withAlias("f"), Flag.withDefault(false)),
      node: Flag.optional(reading("node", "N", "only the pod of node N (0 is the first)", wholeNumber(9), "a whole number")),
      tail: Flag.optional(reading("tail", "N", "only the last N lines of each pod's log", wholeNumber(9), "a whole number")),
      previous: toggle("previous", "the log of the container's previous run (after a restart)"),
      since: Flag.optional(reading("since", "DURATION", "only lines written in the last DURATION, e.g. 30s, 5m, 1h, by the cluster's clock", duration(false), "a duration (e.g. 30s, 5m, 1h)")),
      container: optional("container", "NAME", "the container whose log is read (default: each pod's first)").pipe(Flag.withAlias("c"))
    },
    [{ command: `dispatch logs ${jobExample} --kubeconfig sim.kubeconfig -f`, description: "follow every node's log" }]
  ),
  probe: cluster("probe", "prove the backend's reach, write and launch gates with the preflight probe", {}, [
    { command: "dispatch probe --kubeconfig kubeconfig --config examples/config.json", description: "prove a cluster's gates" }
  ]),
  capabilities: cluster("capabilities", "check that the backend can run a request's spec, creating nothing", { request: requiredRequest }, [
    { command: "dispatch capabilities --sim --request examples/request.json", description: "what the example needs of the backend" }
  ]),
  rbac: {
    words: ["rbac"],
    summary: "print the least-privilege ServiceAccount, Role, ClusterRole and bindings the adapter needs in a mode",
    flags: {
      mode: oneOf("mode", ["plain", "kueue"], "plain", "the backend's mode: plain, or kueue (which also patches Kueue's Workloads) (default plain)"),
      namespace: required("namespace", "NS", "the namespace dispatch's jobs run in: the Role, the RoleBinding and the ServiceAccount's").pipe(Flag.withAlias("n")),
      "service-account": required("service-account", "NAME", "the ServiceAccount dispatch runs as"),
      output: output(["yaml", "json"], "yaml")
    },
    examples: [{ command: "dispatch rbac --mode kueue --namespace ml-team --service-account dispatch | kubectl apply -f -", description: "grant a Kueue-mode dispatch in ml-team what it needs" }]
  },
  simServe: {
    words: ["sim", "serve"],
    summary: "serve a simulated cluster on 127.0.0.1 for kubectl and client-node",
    flags: {
      output: output(formats, "text"),
      port: port(0, "the port to listen on (default: any free port)"),
      "kubeconfig-out": optional("kubeconfig-out", "FILE", "where to write a kubeconfig for the server"),
      runtime: several("runtime", "FILE", "runtime manifests to seed (TrainingRuntime, ClusterTrainingRuntime, Namespace)"),
      mode: oneOf("mode", ["plain", "kueue"], "plain", "which controllers run (default plain)"),
      config: optional("config", "FILE", "the backend config whose namespace (and Kueue queue) is served"),
      "read-only": toggle("read-only", "every request may get, list and watch, nothing else"),
      rbac: toggle("rbac", "authorize every request with RBAC, as kube-apiserver does; the kubeconfig's own user stays a cluster admin"),
      "service-account": several(
        "service-account",
        "NS/NAME",
        "with --rbac: create the ServiceAccount (and its namespace) and add a user and context named system:serviceaccount:NS:NAME, with a token for it, to the kubeconfig"
      ),
      fault: several("fault", "RULE", "VERB:RESOURCE[:NAME]=ACTION, e.g. create:trainjobs=drop"),
      "run-time": Flag.optional(reading("run-time", "S", "each training run completes S seconds after it starts (default 5)", wholeNumber(6, 1), "a whole number of seconds from 1 to 999999")),
      exec: toggle("exec", "run each pod's command as a local child process: its output is the pod's log, its exit ends the pod"),
      "queue-cpu": Flag.optional(reading("queue-cpu", "Q", "--mode kueue: the ClusterQueue's nominal CPU quota, e.g. 8 or 500m (default: not counted)", quantity, "a quantity (e.g. 8, 500m, 1.5)")),
      "queue-memory": Flag.optional(reading("queue-memory", "Q", "--mode kueue: the ClusterQueue's nominal memory quota, e.g. 64Gi (default: not counted)", quantity, "a quantity (e.g. 64Gi, 512Mi)")),
      "queue-gpus": Flag.optional(reading("queue-gpus", "N", "--mode kueue: the ClusterQueue's nominal nvidia.com/gpu quota (default: not counted)", wholeNumber(6), "a whole number of GPUs")),
      "cluster-queue": optional("cluster-queue", "NAME", "--mode kueue: the ClusterQueue behind the config's LocalQueue (default cluster-queue)")
    },
    examples: [
      { command: "dispatch sim serve --kubeconfig-out sim.kubeconfig --runtime examples/runtime.yaml", description: "a simulated cluster for kubectl" },
      {
        command: "dispatch sim serve --rbac --service-account ml-team/dispatch --kubeconfig-out sim.kubeconfig",
        description: "one that enforces RBAC, with a context acting as ServiceAccount dispatch in ml-team"
      }
    ]
  },
  serve: {
    words: ["serve"],
    summary: "serve the job service (Dioptra's job API) and dispatch its jobs to a cluster",
    flags: {
      output: output(formats, "text"),
      ...settingFlags(ServeSettings)
    },
    alternatives: ["kubeconfig", "cluster", "sim"],
    helpNotes: settingsHelp(ServeSettings),
    examples: [
      { command: "dispatch serve --sim --port 8080", description: "the job service on an embedded simulator" },
      { command: "dispatch serve --sim --sim-kubeconfig-out sim.kubeconfig", description: "the same, its cluster reachable with kubectl --kubeconfig sim.kubeconfig" }
    ]
  },
  hashToken: {
    words: ["serve", "hash-token"],
    summary: "make a job-service token and the entry that configures it",
    flags: {
      name: required("name", "N", "who the token is for"),
      group: required("group", "G", "the group the token acts in"),
      "read-only": toggle("read-only", "the token may read but not write")
    }
  },
  newId: {
    words: ["new-id"],
    summary: "print a fresh JobID (a ULID) for a request's job",
    flags: { output: output(formats, "text") },
    examples: [{ command: "dispatch new-id", description: "a JobID such as 01JD8X2Q4M7N9P3R5S6T8V0W1Y" }]
  },
  version: { words: ["version"], summary: "print dispatch's version", flags: { output: output(formats, "text") } },
  completion: {
    words: ["completion"],
    summary: "print the shell completion script for bash, zsh or fish",
    flags: {},
    argument: Argument.Literals("shell", ["bash", "zsh", "fish"]).pipe(Argument.withDescription("bash, zsh or fish")),
    examples: [{ command: "source <(dispatch completion bash)", description: "complete dispatch's commands and flags in this bash" }]
  }
} as const satisfies Record<string, CommandDeclaration>

/** Every command's declaration, in the order `dispatch help` lists them. */
export const allCommands: ReadonlyArray<CommandDeclaration> = Object.values(Commands)
