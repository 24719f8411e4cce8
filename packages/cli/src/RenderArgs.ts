// The options of `dispatch render`.
import { Commands } from "./Commands.ts"
import { type ArgList, type UsageError, finish, readValues } from "./FlagReader.ts"

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
  const options = readValues(Commands.render, list)
  const request = options.value("request")
  const runtimes = options.value("runtime")
  const config = options.value("config")
  const output = options.value("output")
  return finish(options, () => ({ request, runtimes, ...(config === undefined ? {} : { config }), output }))
}
