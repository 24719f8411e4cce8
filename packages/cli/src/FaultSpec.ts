// `--fault` rules of `dispatch sim serve`, written `VERB:RESOURCE[:NAME]=ACTION`, for example
// `create:trainjobs=drop` (applied, never answered), `create:trainingruntimes=503`,
// `get:trainingruntimes=refuse` or `patch:trainjobs=delay:1500`. Every matching call gets the action.
import type { FaultAction, FaultRule, Verb } from "@dispatch/sim"

const verbs: ReadonlyArray<Verb> = ["create", "get", "list", "update", "patch", "delete", "watch"]

/** How a `--fault` value is written. */
export const faultSyntax = "VERB:RESOURCE[:NAME]=refuse|drop|delay:MS|STATUS (e.g. create:trainjobs=drop)"

const actionOf = (text: string): FaultAction | undefined => {
  if (text === "refuse" || text === "drop") return { type: text }
  const delay = /^delay:(\d{1,7})$/.exec(text)
  if (delay !== null) return { type: "delay", ms: Number(delay[1]) }
  if (/^[1-5]\d\d$/.test(text)) return { type: "status", code: Number(text) }
  return undefined
}

/** Reads one `--fault` value, or says what is wrong with it. */
export const parseFault = (text: string): { readonly rule: FaultRule } | { readonly problem: string } => {
  const eq = text.indexOf("=")
  const [verb, resource, name, ...extra] = (eq < 0 ? text : text.slice(0, eq)).split(":")
  const action = eq < 0 ? undefined : actionOf(text.slice(eq + 1))
  const bad = (why: string) => ({ problem: `--fault "${text}": ${why}; expected ${faultSyntax}` })
  if (verb === undefined || !verbs.some((v) => v === verb)) return bad(`"${verb ?? ""}" is not a verb (${verbs.join(", ")})`)
  if (resource === undefined || !/^[a-z]+$/.test(resource)) return bad("the resource must be a plural such as trainjobs")
  if (extra.length > 0 || name === "") return bad("too many parts before =")
  if (action === undefined) return bad("the action must be refuse, drop, delay:MS or an HTTP status")
  return { rule: { verb: verb as Verb, resource, ...(name === undefined ? {} : { name }), action } }
}

/** Writes a rule as `parseFault` reads it. */
export const formatFault = (rule: FaultRule): string => {
  const action = rule.action
  const what = action.type === "delay" ? `delay:${action.ms}` : action.type === "status" ? String(action.code) : action.type
  return `${rule.verb ?? ""}:${rule.resource ?? ""}${rule.name === undefined ? "" : `:${rule.name}`}=${what}`
}
