// The options of `dispatch render`.
import { type ArgList, type UsageError, finish, readOptions } from "./OptionReader.ts"

/** The options of `dispatch render`. */
export interface RenderArgs {
  readonly request: string
  readonly runtimes: ReadonlyArray<string>
  readonly config?: string
  /** `text` is the YAML, the manifests' own text. */
  readonly output: "yaml" | "json" | "text"
}

/** Reads the arguments that follow `render`. */
export const parseRenderArgs = (list: ArgList): { readonly args: RenderArgs } | UsageError => {
  const options = readOptions(list, { values: ["request", "config", "output"], multi: ["runtime"] })
  const request = options.required("request")
  const runtimes = options.list("runtime")
  if (runtimes.length === 0 && options.problems.every((p) => !p.startsWith("--runtime"))) options.problem("--runtime is required")
  const config = options.single("config")
  const output = options.choice("output", ["yaml", "json", "text"] as const, "yaml")
  return finish(options, () => ({ request: request ?? "", runtimes, ...(config === undefined ? {} : { config }), output: output ?? "yaml" }))
}
