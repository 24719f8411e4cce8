// RBAC's escalation check, as kube-apiserver's RBAC storage makes it on every write of a role or a
// binding: a user may write a Role or ClusterRole only with rules it holds itself (where the role
// applies), and bind a role only when it holds that role's rules, unless it may `escalate` roles or
// `bind` that role. system:masters may do anything; only it (or `escalate`) may set an aggregationRule.
import type { PolicyRule, UserInfo } from "./RbacRules.ts"

/** One permission: a verb on one group, resource and (optional) name, or on one non-resource URL. */
type Atom =
  | { readonly kind: "resource"; readonly verb: string; readonly group: string; readonly resource: string; readonly name?: string }
  | { readonly kind: "url"; readonly verb: string; readonly url: string }

const breakdown = (rule: PolicyRule): ReadonlyArray<Atom> =>
  rule.verbs.flatMap((verb) => [
    ...rule.apiGroups.flatMap((group) =>
      rule.resources.flatMap((resource): ReadonlyArray<Atom> =>
        rule.resourceNames.length === 0 ? [{ kind: "resource", verb, group, resource }] : rule.resourceNames.map((name) => ({ kind: "resource", verb, group, resource, name }))
      )
    ),
    ...rule.nonResourceURLs.map((url): Atom => ({ kind: "url", verb, url }))
  ])

const hasOrStar = (list: ReadonlyArray<string>, value: string): boolean => list.includes("*") || list.includes(value)

// An owner's "*", the resource itself, or for "a/b" an owner's "a/*" or "*/b".
const resourceCovered = (owner: ReadonlyArray<string>, resource: string): boolean => {
  if (owner.includes("*") || owner.includes(resource)) return true
  const slash = resource.indexOf("/")
  return slash > 0 && (owner.includes(`${resource.slice(0, slash)}/*`) || owner.includes(`*${resource.slice(slash)}`))
}

const covers = (owner: PolicyRule, atom: Atom): boolean => {
  if (!hasOrStar(owner.verbs, atom.verb)) return false
  if (atom.kind === "url") return owner.nonResourceURLs.some((u) => u === atom.url || (u.endsWith("*") && atom.url.startsWith(u.slice(0, -1))))
  return (
    hasOrStar(owner.apiGroups, atom.group) &&
    resourceCovered(owner.resources, atom.resource) &&
    (owner.resourceNames.length === 0 || (atom.name !== undefined && owner.resourceNames.includes(atom.name)))
  )
}

/** The permissions of `wanted` that no rule of `held` covers, compacted into rules (verbs merged per group, resource and name), sorted. */
export const missingRules = (held: ReadonlyArray<PolicyRule>, wanted: ReadonlyArray<PolicyRule>): ReadonlyArray<PolicyRule> => {
  const missing = wanted.flatMap(breakdown).filter((atom) => !held.some((owner) => covers(owner, atom)))
  const merged = new Map<string, { rule: PolicyRule; verbs: Array<string> }>()
  for (const atom of missing) {
    const rule: PolicyRule =
      atom.kind === "url"
        ? { verbs: [], apiGroups: [], resources: [], resourceNames: [], nonResourceURLs: [atom.url] }
        : { verbs: [], apiGroups: [atom.group], resources: [atom.resource], resourceNames: atom.name === undefined ? [] : [atom.name], nonResourceURLs: [] }
    const key = JSON.stringify(rule)
    const entry = merged.get(key) ?? { rule, verbs: [] }
    if (!entry.verbs.includes(atom.verb)) entry.verbs.push(atom.verb)
    merged.set(key, entry)
  }
  return [...merged.values()].map(({ rule, verbs }) => ({ ...rule, verbs })).sort((a, b) => compactString(a).localeCompare(compactString(b)))
}

const quoted = (list: ReadonlyArray<string>): string => `[${list.map((s) => JSON.stringify(s)).join(" ")}]`

/** A rule as the escalation message prints it: only its non-empty lists, Go's %q style. */
export const compactString = (rule: PolicyRule): string => {
  const parts: Array<string> = []
  if (rule.apiGroups.length > 0) parts.push(`APIGroups:${quoted(rule.apiGroups)}`)
  if (rule.resources.length > 0) parts.push(`Resources:${quoted(rule.resources)}`)
  if (rule.resourceNames.length > 0) parts.push(`ResourceNames:${quoted(rule.resourceNames)}`)
  if (rule.nonResourceURLs.length > 0) parts.push(`NonResourceURLs:${quoted(rule.nonResourceURLs)}`)
  parts.push(`Verbs:${quoted(rule.verbs)}`)
  return `{${parts.join(", ")}}`
}

/** Why granting `wanted` escalates the user's privileges (the text after "is forbidden: "), or undefined when it holds them all. */
export const escalationProblem = (user: UserInfo, held: ReadonlyArray<PolicyRule>, wanted: ReadonlyArray<PolicyRule>): string | undefined => {
  const missing = missingRules(held, wanted)
  if (missing.length === 0) return undefined
  return `user ${JSON.stringify(user.name)} (groups=${quoted(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${missing.map(compactString).join("\n")}`
}
