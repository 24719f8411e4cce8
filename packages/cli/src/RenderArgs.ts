// The options of `dispatch render`.
import { type UsageError, finish, readOptions } from "./OptionReader.ts"

/** The options of `dispatch render`. */
export interface RenderArgs {
  readonly request: string
  readonly runtimes: ReadonlyArray<string>
  readonly config?: string
  readonly output: "yaml" | "json"
}

/** How `dispatch render` is called. */
export const renderUsage = "usage: dispatch render --request R --runtime RT [RT ...] [--config C] [-o yaml|json]"

/** Reads the arguments that follow `render`. */
export const parseRenderArgs = (argv: ReadonlyArray<string>): { readonly args: RenderArgs } | UsageError => {
  const options = readOptions(argv, { values: ["request", "config", "output"], multi: ["runtime"] })
  const request = options.required("request")
  const runtimes = options.list("runtime")
  if (runtimes.length === 0 && options.problems.every((p) => !p.startsWith("--runtime"))) options.problem("--runtime is required")
  const config = options.single("config")
  const output = options.choice("output", ["yaml", "json"] as const, "yaml")
  return finish(options, () => ({ request: request ?? "", runtimes, ...(config === undefined ? {} : { config }), output: output ?? "yaml" }))
}
