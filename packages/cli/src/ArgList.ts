// A command line read as flags and values: `--flag value`, `--flag=value`, `-o value`, switches that
// take no value, and flags given several times. Which flags exist and what they mean is each command's
// business.

/** A command line split into flag values (in order given) and positional words. */
export interface ArgList {
  readonly flags: ReadonlyMap<string, ReadonlyArray<string>>
  readonly positional: ReadonlyArray<string>
  /** Flags given without a value. */
  readonly missingValues: ReadonlyArray<string>
}

/** How a command's flags are spelled: which take several values, which none, and the one-letter aliases. */
export interface ArgSyntax {
  readonly multi?: ReadonlySet<string>
  readonly switches?: ReadonlySet<string>
  /** One-letter aliases, e.g. `o` for `output`, so that `-o json` means `--output json`. */
  readonly short?: ReadonlyMap<string, string>
}

const flagOf = (word: string, short: ReadonlyMap<string, string>): string | undefined => {
  if (word.startsWith("--")) return word.slice(2)
  return /^-[A-Za-z]$/.test(word) ? (short.get(word.slice(1)) ?? word.slice(1)) : undefined
}

/**
 * Splits argv. A flag takes the following words up to the next flag when `multi` names it, none when
 * `switches` names it (it is recorded with the value ""), else exactly one word.
 */
export const parseArgList = (argv: ReadonlyArray<string>, syntax: ArgSyntax = {}): ArgList => {
  const multi = syntax.multi ?? new Set()
  const switches = syntax.switches ?? new Set()
  const short = syntax.short ?? new Map()
  const flags = new Map<string, Array<string>>()
  const positional: Array<string> = []
  const missingValues: Array<string> = []
  const add = (flag: string, value: string) => flags.set(flag, [...(flags.get(flag) ?? []), value])
  const isFlag = (word: string | undefined) => word !== undefined && flagOf(word, short) !== undefined
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] ?? ""
    const named = flagOf(word, short)
    if (named === undefined) {
      positional.push(word)
      continue
    }
    const eq = named.indexOf("=")
    if (eq > 0 && word.startsWith("--")) {
      add(named.slice(0, eq), named.slice(eq + 1))
      continue
    }
    if (switches.has(named)) {
      add(named, "")
      continue
    }
    let taken = 0
    while (i + 1 < argv.length && !isFlag(argv[i + 1]) && (taken === 0 || multi.has(named))) {
      add(named, argv[++i] ?? "")
      taken++
    }
    if (taken === 0) missingValues.push(named)
  }
  return { flags, positional, missingValues }
}
