// The command line on effect/cli: the command tree made from the commands' declarations (Commands.ts),
// help anywhere (`--help`, `-h`, `dispatch help <command>`), `--version`, shell completions, and each
// command's own module loaded only when it runs. The tree takes each declared flag's values as words:
// effect/cli's parser stops at the first bad value, so each command parses them with its declared flags
// (FlagReader), naming every problem; an unknown option or a stray word is set aside and the line read
// again, so that one run still names everything wrong with it.
import { Console, Effect, FileSystem, Layer, Option, Path, Stdio, Terminal } from "effect"
import { Argument, CliConfig, CliOutput, Command, Completions, Flag, GlobalFlag } from "effect/cli"
import { ChildProcessSpawner } from "effect/process"
import { readFileSync } from "node:fs"
import { colourOn } from "./Colour.ts"
import type { CliIo } from "./CliIo.ts"
import { type CommandDeclaration, Commands } from "./Commands.ts"
import { endCommand } from "./CommandEnd.ts"
import { ExitCode } from "./ExitCode.ts"
import { usage } from "./Failure.ts"
import { completionsShell, fishScript, withValueTypes } from "./CompletionScript.ts"
import { type FlagFacts, argumentOf, displayFlag, flagsOf } from "./FlagFacts.ts"
import { type ArgList, type CommandImpl, readValues } from "./FlagReader.ts"
import { normalizeArgv } from "./KubectlArgv.ts"
import { printResult } from "./Output.ts"
import { optionsOf, usageLine } from "./Usage.ts"

/** A command: its declaration and its module, loaded when it runs. */
export interface Command {
  readonly spec: CommandDeclaration
  readonly load: () => Promise<CommandImpl>
}

/** dispatch's version, from its package.json (one level above src/ and dist/ alike). */
export const version: string = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version

const entry = (spec: CommandDeclaration, load: () => Promise<CommandImpl>): Command => ({ spec, load })

/** Every command of the CLI, in the order `dispatch help` lists them. */
export const commands: ReadonlyArray<Command> = [
  entry(Commands.demo, () => import("./commands/Demo.ts").then((m) => m.demoCommand)),
  entry(Commands.demoService, () => import("./commands/DemoService.ts").then((m) => m.demoServiceCommand)),
  entry(Commands.render, () => import("./commands/Render.ts").then((m) => m.renderCommand)),
  entry(Commands.start, () => import("./commands/Start.ts").then((m) => m.startImpl)),
  entry(Commands.find, () => import("./commands/Find.ts").then((m) => m.findImpl)),
  entry(Commands.open, () => import("./commands/Transition.ts").then((m) => m.transitionImpl("open"))),
  entry(Commands.hold, () => import("./commands/Transition.ts").then((m) => m.transitionImpl("hold"))),
  entry(Commands.release, () => import("./commands/Transition.ts").then((m) => m.transitionImpl("release"))),
  entry(Commands.stop, () => import("./commands/Stop.ts").then((m) => m.stopImpl)),
  entry(Commands.wait, () => import("./commands/Wait.ts").then((m) => m.waitImpl)),
  entry(Commands.list, () => import("./commands/List.ts").then((m) => m.listImpl)),
  entry(Commands.runtimes, () => import("./commands/Runtimes.ts").then((m) => m.runtimesImpl)),
  entry(Commands.logs, () => import("./commands/Logs.ts").then((m) => m.logsImpl)),
  entry(Commands.probe, () => import("./commands/Probe.ts").then((m) => m.probeImpl)),
  entry(Commands.capabilities, () => import("./commands/Capabilities.ts").then((m) => m.capabilitiesImpl)),
  entry(Commands.rbac, () => import("./commands/Rbac.ts").then((m) => m.rbacCommand)),
  entry(Commands.simServe, () => import("./commands/SimServe.ts").then((m) => m.simServeCommand)),
  entry(Commands.serve, () => import("./commands/Serve.ts").then((m) => m.serveCommand)),
  entry(Commands.hashToken, () => import("./commands/Serve.ts").then((m) => m.hashTokenCommand)),
  entry(Commands.newId, () => import("./commands/NewId.ts").then((m) => m.newIdCommand)),
  entry(Commands.version, async () => versionCommand),
  entry(Commands.completion, async () => completionCommand)
]

const specs = commands.map((c) => c.spec)

/** How a flag of any command is named in a problem, by its long name. */
const displayName = (name: string): string => displayFlag(specs.flatMap(flagsOf).find((f) => f.name === name) ?? { name })

const rootUsage = (): ReadonlyArray<string> => [
  "usage: dispatch <command> [options]   (dispatch <command> --help: its flags and examples)",
  "",
  ...specs.flatMap((s) => [`  dispatch ${[...s.words, optionsOf(s)].filter((p) => p !== "").join(" ")}`, `      ${s.summary}`]),
  "",
  "Exit codes: 0 ok, 1 other failure, 2 usage, 3 ErrInvalid, 4 ErrUnsupported, 5 ErrRejected,",
  "6 ErrUnreachable, 7 ErrReadOnly, 8 ErrOutcomeUnknown (docs/cli.md)."
]

const versionOutput = (list: ArgList) => {
  const options = readValues(Commands.version, list)
  return { options, output: options.value("output") }
}

const versionCommand: CommandImpl = {
  check: (list) => versionOutput(list).options.problems,
  run: async (list, io) => {
    const { options, output } = versionOutput(list)
    if (options.problems.length > 0) return endCommand(io, "version", "text", usage(options.problems, usageLine(Commands.version)))
    printResult(io, output, { version }, [`dispatch ${version}`])
    return ExitCode.ok
  }
}

const shells = argumentOf(Commands.completion)?.choices ?? []

const completionCommand: CommandImpl = {
  check: (list) => {
    const shell = list.positional[0]
    if (shell === undefined) return ["completion needs a shell: bash, zsh or fish"]
    return shells.some((s) => s === shell) ? [] : [`"${shell}" is not one of ${shells.join(", ")}`]
  },
  run: async (list, io) => {
    const problems = completionCommand.check(list)
    if (problems.length > 0) return endCommand(io, "completion", "text", usage(problems, usageLine(Commands.completion)))
    const shell = list.positional[0] as "bash" | "zsh" | "fish"
    const script = Completions.generate("dispatch", shell, withValueTypes(Completions.fromCommand(tree({ io, result: {} })), specs))
    io.out(shell === "fish" ? fishScript(script, specs) : script)
    return ExitCode.ok
  }
}

// ---------------------------------------------------------------------------------------------------
// The effect/cli tree

/** What one read of the line ends in. */
type Outcome =
  | { readonly _tag: "Read"; readonly command: Command; readonly list: ArgList }
  | { readonly _tag: "Invalid"; readonly commandPath: ReadonlyArray<string>; readonly errors: ReadonlyArray<{ readonly _tag: string } & Record<string, unknown>> }
  | { readonly _tag: "Shown" }

interface Run {
  readonly io: CliIo
  result: { outcome?: Outcome }
}

const paramOf = (f: FlagFacts) => {
  const base =
    f.kind === "switch"
      ? (Flag.Boolean(f.name).pipe(
          (flag) => (f.negation === undefined ? Flag.withoutNegation(flag) : Flag.withNegation(flag, f.negation)),
          Flag.withDefault(false),
          Flag.map((on): ReadonlyArray<string> => (on ? [""] : []))
        ) as Flag.Flag<ReadonlyArray<string>>)
      : Flag.String(f.name).pipe(Flag.atLeast(0), Flag.withMetavar(f.metavar ?? "VALUE"))
  const described = base.pipe(Flag.withDescription(f.description))
  return f.short === undefined ? described : described.pipe(Flag.withAlias(f.short))
}

const leaf = (command: Command, name: string, run: Run) => {
  const spec = command.spec
  const flags = flagsOf(spec)
  const argument = argumentOf(spec)
  const config: Record<string, Flag.Flag<ReadonlyArray<string>> | Argument.Argument<Option.Option<string>>> = Object.fromEntries(flags.map((f) => [f.name, paramOf(f)]))
  if (argument !== undefined) config["~argument"] = Argument.String(argument.name).pipe(Argument.withDescription(argument.description), Argument.optional)
  const made = Command.make(name, config, (values: Record<string, unknown>) =>
    Effect.sync(() => {
      const given = new Map<string, ReadonlyArray<string>>()
      for (const f of flags) {
        const words = values[f.name] as ReadonlyArray<string>
        if (words.length > 0) given.set(f.name, words)
      }
      const word = values["~argument"] as Option.Option<string> | undefined
      const list: ArgList = { flags: given, positional: word !== undefined && Option.isSome(word) ? [word.value] : [] }
      run.result.outcome = { _tag: "Read", command, list }
    })
  )
  return made.pipe(
    Command.withDescription(spec.summary),
    Command.withExamples((spec.examples ?? []).map((e) => ({ command: e.command, description: e.description })))
  )
}

type AnyCommand = Command.Command.Any

/** The tree of commands under `prefix`: each word a command, its handler the spec of those words, if any. */
const subtree = (prefix: ReadonlyArray<string>, run: Run): ReadonlyArray<AnyCommand> => {
  const names = [...new Set(commands.filter((c) => c.spec.words.length > prefix.length && prefix.every((w, i) => c.spec.words[i] === w)).map((c) => c.spec.words[prefix.length] ?? ""))]
  return names.map((name) => {
    const words = [...prefix, name]
    const own = commands.find((c) => c.spec.words.length === words.length && words.every((w, i) => c.spec.words[i] === w))
    const base: AnyCommand = own === undefined ? Command.make(name).pipe(Command.withDescription(`the ${name} commands`)) : leaf(own, name, run)
    const children = subtree(words, run)
    const [first, ...more] = children
    return first === undefined ? base : base.pipe(Command.withSubcommands([first, ...more]))
  })
}

const tree = (run: Run): AnyCommand => {
  const [first, ...more] = subtree([], run)
  return Command.make("dispatch" as string).pipe(Command.withDescription("turns an ML training job into Kubeflow Trainer objects and starts it safely"), Command.withSubcommands([first!, ...more]))
}

/** Whether help may use colour: on a terminal, and never with NO_COLOR. */
export const helpColour = (io: CliIo): boolean => colourOn(io, "out")

const environment = (run: Run) =>
  Layer.mergeAll(
    FileSystem.layerNoop({}),
    Path.layer,
    Stdio.layerTest({}),
    Layer.succeed(
      Terminal.Terminal,
      Terminal.make({
        columns: Effect.succeed(100),
        rows: Effect.succeed(24),
        size: Effect.die("not a terminal"),
        readInput: Effect.die("not a terminal"),
        readLine: Effect.die("not a terminal"),
        display: () => Effect.void
      })
    ),
    Layer.succeed(ChildProcessSpawner.ChildProcessSpawner, ChildProcessSpawner.make(() => Effect.die("dispatch spawns no processes"))),
    CliConfig.layer({ builtIns: [GlobalFlag.Help, GlobalFlag.Version, GlobalFlag.Completions] }),
    CliOutput.layerPresenter({
      present: (event) =>
        Effect.sync(() => {
          switch (event._tag) {
            case "Help":
              run.result.outcome = { _tag: "Shown" }
              if (event.commandPath.length <= 1) for (const line of rootUsage()) run.io.out(line)
              else {
                run.io.out(CliOutput.defaultFormatter({ colors: helpColour(run.io) }).formatHelpDoc(event.helpDoc).trimEnd())
                const notes = specs.find((s) => ["dispatch", ...s.words].join(" ") === event.commandPath.join(" "))?.helpNotes ?? []
                if (notes.length > 0) run.io.out(["", ...notes].join("\n"))
              }
              return
            case "Version":
              run.result.outcome = { _tag: "Shown" }
              run.io.out(`dispatch ${event.version}`)
              return
            case "InvalidInvocation":
              run.result.outcome = { _tag: "Invalid", commandPath: event.commandPath, errors: event.errors as unknown as ReadonlyArray<{ readonly _tag: string } & Record<string, unknown>> }
              return
          }
        })
    }),
    Layer.succeed(CliOutput.Formatter, CliOutput.defaultFormatter({ colors: helpColour(run.io) }))
  )

/** Reads the line once with effect/cli: the command and its values, or what stopped it, or help shown. */
const readOnce = async (argv: ReadonlyArray<string>, io: CliIo): Promise<Outcome> => {
  const run: Run = { io, result: {} }
  const program = Command.runWith(tree(run), { version })(argv)
  const console = { ...globalThis.console, log: (...a: ReadonlyArray<unknown>) => io.out(a.join(" ")), error: (...a: ReadonlyArray<unknown>) => io.err(a.join(" ")) }
  await Effect.runPromise((program as Effect.Effect<void, unknown, Command.Environment>).pipe(Effect.provide(environment(run)), Effect.provideService(Console.Console, console), Effect.ignore))
  return run.result.outcome ?? { _tag: "Shown" }
}

/** The words of a structural problem, and the line without what caused it (undefined: it cannot be set aside). */
const setAside = (
  argv: ReadonlyArray<string>,
  error: { readonly _tag: string } & Record<string, unknown>
): { readonly problem: string; readonly argv?: ReadonlyArray<string> } => {
  const drop = (match: (word: string, i: number) => boolean, withValue: boolean): ReadonlyArray<string> => {
    const at = argv.findIndex(match)
    if (at < 0) return argv
    const next = argv[at + 1]
    const takesNext = withValue && !(argv[at] ?? "").includes("=") && next !== undefined && !next.startsWith("-")
    return [...argv.slice(0, at), ...argv.slice(at + (takesNext ? 2 : 1))]
  }
  switch (error._tag) {
    case "UnrecognizedOption": {
      const option = String(error["option"])
      return { problem: `unknown option ${option}`, argv: drop((w) => w === option || w.startsWith(`${option}=`), true) }
    }
    case "InvalidValue": {
      const option = String(error["option"])
      if (error["value"] !== "") return { problem: `${displayName(option)} "${String(error["value"])}" is not valid: ${String(error["expected"])}` }
      return { problem: `${displayName(option)} needs a value`, argv: drop((w, i) => (w === `--${option}` || /^-[a-z]$/.test(w)) && (argv[i + 1] === undefined || (argv[i + 1] ?? "").startsWith("-")), false) }
    }
    case "UnexpectedArgument": {
      const words = (error["arguments"] as ReadonlyArray<string>) ?? []
      let rest = argv
      for (const word of words) rest = ((at) => (at < 0 ? rest : [...rest.slice(0, at), ...rest.slice(at + 1)]))(rest.lastIndexOf(word))
      return { problem: words.map((w) => `unexpected argument "${w}"`).join("\n"), argv: rest }
    }
    case "MissingOption":
      return { problem: `${displayName(String(error["option"]))} is required` }
    default:
      return { problem: String(error["message"] ?? error._tag) }
  }
}

/** A command line as read: the command and its values, with every problem effect/cli stopped at; or help shown. */
export type ReadLine =
  | { readonly _tag: "Read"; readonly command: Command; readonly list: ArgList; readonly problems: ReadonlyArray<string> }
  | { readonly _tag: "Unknown"; readonly words: string }
  | { readonly _tag: "Usage"; readonly words: ReadonlyArray<string>; readonly problems: ReadonlyArray<string> }
  | { readonly _tag: "Shown" }

/** Reads a command line, setting aside each word effect/cli stops at (an unknown option, a stray word) and reading again. */
export const readLine = async (argv: ReadonlyArray<string>, io: CliIo): Promise<ReadLine> => {
  let line = normalizeArgv(specs, argv)
  // A word where the command belongs that names none is an unknown command, even with --help (which
  // effect/cli would answer with the general help).
  const first = line[0]
  if (first !== undefined && !first.startsWith("-") && !specs.some((s) => s.words[0] === first)) return { _tag: "Unknown", words: first }
  // Flags and no command: say so, rather than read a flag's value as a command.
  const builtIn = /^(-h|--help|-v|--version|--completions(=.*)?)$/
  if (first !== undefined && first.startsWith("-") && !line.some((w) => builtIn.test(w))) return { _tag: "Usage", words: [], problems: ["no command given (dispatch help lists them)"] }
  const problems: Array<string> = []
  // Each read sets aside at least one word, or stops: a line has finitely many words, so this ends.
  for (;;) {
    const outcome = await readOnce(line, io)
    if (outcome._tag === "Shown") return outcome
    if (outcome._tag === "Read") return { _tag: "Read", command: outcome.command, list: outcome.list, problems }
    const unknown = outcome.errors.find((e) => e._tag === "UnknownSubcommand")
    if (unknown !== undefined) return { _tag: "Unknown", words: [...((unknown["parent"] as ReadonlyArray<string>) ?? []).slice(1), String(unknown["subcommand"])].join(" ") }
    let next: ReadonlyArray<string> | undefined = line
    for (const error of outcome.errors) {
      const aside = setAside(next ?? line, error)
      problems.push(...aside.problem.split("\n").filter((p) => !problems.includes(p)))
      next = next === undefined ? undefined : aside.argv
    }
    if (next === undefined || next.length >= line.length) return { _tag: "Usage", words: outcome.commandPath.slice(1), problems }
    line = next
  }
}

/** A command line read: the command to run and its values, or the exit code of a line that ended there (help shown,
 * an unknown command, a usage problem). */
export const readCommand = async (argv: ReadonlyArray<string>, io: CliIo): Promise<{ readonly command?: Command; readonly impl: CommandImpl; readonly list: ArgList } | number> => {
  // `--completions SHELL` prints the same typed script as `dispatch completion SHELL`, not effect/cli's own.
  const shell = completionsShell(argv)
  if (shell !== undefined) return { impl: completionCommand, list: { flags: new Map(), positional: [shell] } }
  const read = await readLine(argv, io)
  switch (read._tag) {
    case "Shown":
      return ExitCode.ok
    case "Unknown":
      io.err(`dispatch: unknown command "${read.words}"`)
      for (const line of rootUsage()) io.err(line)
      return ExitCode.usage
    case "Usage": {
      const spec = specs.find((s) => s.words.join(" ") === read.words.join(" "))
      return endCommand(io, read.words.join(" "), "text", usage(read.problems, spec === undefined ? undefined : usageLine(spec)))
    }
    case "Read": {
      const impl = await read.command.load()
      if (read.problems.length === 0) return { command: read.command, impl, list: read.list }
      const problems = [...read.problems, ...impl.check(read.list).filter((p) => !read.problems.includes(p))]
      return endCommand(io, read.command.spec.words.join(" "), "text", usage(problems, usageLine(read.command.spec)))
    }
  }
}

/** Runs the CLI on a command line (without the node and script words); resolves to the exit code. */
export const runCli = async (argv: ReadonlyArray<string>, io: CliIo): Promise<number> => {
  const read = await readCommand(argv, io)
  return typeof read === "number" ? read : read.impl.run(read.list, io)
}
