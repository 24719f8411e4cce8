// What a declared flag or positional word is, read off its effect/cli declaration (Commands.ts): its
// name, one-letter spelling, placeholder, description, whether it takes one value, several or none,
// whether it must be given, and its fixed set of values if it has one. The command tree that reads the
// line, the usage lines, the completions' value types and the docs' flag reference all read these. Pure.
import { Option } from "effect"
import type { Argument, Flag, Param } from "effect/cli"
import type { CommandDeclaration } from "./Commands.ts"

/** How a flag takes values: one, one or more (`--runtime a b` or `--runtime a --runtime b`), or none. */
export type FlagKind = "value" | "multi" | "switch"

/** One declared flag, as the command line, help and completions see it. */
export interface FlagFacts {
  readonly name: string
  readonly kind: FlagKind
  readonly description: string
  /** The value's placeholder in help and usage, e.g. `FILE`. */
  readonly metavar?: string
  /** A one-letter spelling, e.g. `o` for `--output`. */
  readonly short?: string
  /** Whether the line must give it (it has no default). */
  readonly required?: boolean
  /** The only values it takes, if it is declared with a fixed set. */
  readonly choices?: ReadonlyArray<string>
  /** A switch's long name that turns it off (effect/cli's `--no-<name>`), unless declared without one. */
  readonly negation?: string
}

/** The positional word a command takes, as the usage line and completions see it. */
export interface ArgumentFacts {
  readonly name: string
  readonly description: string
  readonly required: boolean
  readonly choices?: ReadonlyArray<string>
}

type AnyParam = Param.Param<Param.ParamKind, unknown>
type Node =
  | Param.Single<Param.ParamKind, unknown>
  | Param.Map<Param.ParamKind, unknown, unknown>
  | Param.Transform<Param.ParamKind, unknown, unknown>
  | Param.Optional<Param.ParamKind, unknown>
  | Param.Variadic<Param.ParamKind, unknown>

interface Shape {
  readonly single: Param.Single<Param.ParamKind, unknown>
  readonly optional: boolean
  readonly variadic: boolean
  readonly least: number
}

// A declared param is its one Single (name, type, description) wrapped in maps, checks, an optional
// (what a default is made of) and at most one variadic (several values).
const shapeOf = (param: AnyParam, optional = false, variadic = false, least = 0): Shape => {
  const node = param as Node
  switch (node._tag) {
    case "Single":
      return { single: node, optional, variadic, least }
    case "Map":
    case "Transform":
      return shapeOf(node.param, optional, variadic, least)
    case "Optional":
      return shapeOf(node.param, true, variadic, least)
    case "Variadic":
      return shapeOf(node.param, optional, true, Option.getOrElse(node.min, () => 0))
  }
}

// effect/cli keeps a fixed set's words on its Choice primitive (`choiceKeys`), which its help reads too.
const choicesOf = (single: Param.Single<Param.ParamKind, unknown>): ReadonlyArray<string> | undefined => {
  const keys = (single.primitiveType as { readonly choiceKeys?: ReadonlyArray<string> }).choiceKeys
  return single.primitiveType._tag === "Choice" && keys !== undefined ? keys : undefined
}

/** The facts of one declared flag. */
export const flagFacts = (flag: Flag.Flag<unknown>): FlagFacts => {
  const { single, optional, variadic, least } = shapeOf(flag)
  const isSwitch = single.primitiveType._tag === "Boolean"
  const short = single.aliases.find((a) => a.length === 1)
  const choices = choicesOf(single)
  return {
    name: single.name,
    kind: isSwitch ? "switch" : variadic ? "multi" : "value",
    description: Option.getOrElse(single.description, () => ""),
    ...(isSwitch || single.typeName === undefined ? {} : { metavar: single.typeName }),
    ...(short === undefined ? {} : { short }),
    ...(!isSwitch && !optional && (!variadic || least > 0) ? { required: true } : {}),
    ...(choices === undefined ? {} : { choices }),
    ...(isSwitch && single.negation !== false ? { negation: single.negation ?? `no-${single.name}` } : {})
  }
}

/** The facts of a command's declared flags, in the order it declares them. */
export const flagsOf = (command: CommandDeclaration): ReadonlyArray<FlagFacts> => Object.values(command.flags).map(flagFacts)

/** The facts of a command's positional word, if it takes one. */
export const argumentOf = (command: CommandDeclaration): ArgumentFacts | undefined => {
  if (command.argument === undefined) return undefined
  const { single, optional } = shapeOf(command.argument as Argument.Argument<unknown>)
  const choices = choicesOf(single)
  return { name: single.name, description: Option.getOrElse(single.description, () => ""), required: !optional, ...(choices === undefined ? {} : { choices }) }
}

/** How a flag is named in a problem: its one-letter spelling too where it has one (`-o/--output`). */
export const displayFlag = (flag: Pick<FlagFacts, "name" | "short">): string => (flag.short === undefined ? `--${flag.name}` : `-${flag.short}/--${flag.name}`)
