// RBAC's evaluation, as kube-apiserver's RBAC authorizer does it (plugin/pkg/auth/authorizer/rbac): a
// request is allowed when some rule of some role bound to the user covers it. ClusterRoleBindings grant
// their ClusterRole everywhere; a RoleBinding grants its Role, or a ClusterRole's rules, in its own
// namespace only. Pure: the RBAC objects come from a reader, so the store stays the caller's.
import type { KubeObject } from "../../Api.ts"
import { isJsonObject } from "../store/JsonValue.ts"

/** An authenticated caller: its user name and groups. */
export interface UserInfo {
  readonly name: string
  readonly groups: ReadonlyArray<string>
}

/** One RBAC PolicyRule, its lists read as given (absent = empty). */
export interface PolicyRule {
  readonly verbs: ReadonlyArray<string>
  readonly apiGroups: ReadonlyArray<string>
  readonly resources: ReadonlyArray<string>
  readonly resourceNames: ReadonlyArray<string>
  readonly nonResourceURLs: ReadonlyArray<string>
}

/** What a request asks to do: a verb on a resource (or a subresource, or one named object), or on a non-resource path. */
export type RequestAttributes =
  | {
      readonly kind: "resource"
      readonly verb: string
      readonly group: string
      readonly resource: string
      readonly subresource?: string
      readonly name?: string
      readonly namespace?: string
    }
  | { readonly kind: "nonResource"; readonly verb: string; readonly path: string }

/** The RBAC objects an evaluation reads. */
export interface RbacObjects {
  readonly clusterRoleBindings: () => Iterable<KubeObject>
  readonly roleBindings: (namespace: string) => Iterable<KubeObject>
  readonly role: (namespace: string, name: string) => KubeObject | undefined
  readonly clusterRole: (name: string) => KubeObject | undefined
}

const strings = (value: unknown): ReadonlyArray<string> => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [])

/** A stored rule's lists. */
export const policyRuleOf = (value: unknown): PolicyRule => {
  const rule = isJsonObject(value) ? value : {}
  return {
    verbs: strings(rule["verbs"]),
    apiGroups: strings(rule["apiGroups"]),
    resources: strings(rule["resources"]),
    resourceNames: strings(rule["resourceNames"]),
    nonResourceURLs: strings(rule["nonResourceURLs"])
  }
}

/** A role's rules. */
export const rulesOf = (role: KubeObject | undefined): ReadonlyArray<PolicyRule> => (Array.isArray(role?.["rules"]) ? role["rules"].map(policyRuleOf) : [])

const has = (list: ReadonlyArray<string>, value: string): boolean => list.includes("*") || list.includes(value)

// "pods/log" matches itself and "*/log"; a plain "*" matches every resource and subresource.
const resourceMatches = (rule: PolicyRule, resource: string, subresource: string | undefined): boolean => {
  const combined = subresource === undefined || subresource === "" ? resource : `${resource}/${subresource}`
  return rule.resources.some((r) => r === "*" || r === combined || (subresource !== undefined && subresource !== "" && r === `*/${subresource}`))
}

// A trailing "*" matches every path it is a prefix of; "*" alone matches every path.
const urlMatches = (rule: PolicyRule, path: string): boolean =>
  rule.nonResourceURLs.some((u) => u === "*" || u === path || (u.endsWith("*") && path.startsWith(u.slice(0, -1))))

/**
 * Whether one rule covers the request. A rule with resourceNames covers only requests that name an
 * object, so it never covers list, watch, create or deletecollection of a whole collection.
 */
export const ruleAllows = (rule: PolicyRule, request: RequestAttributes): boolean => {
  if (!has(rule.verbs, request.verb)) return false
  if (request.kind === "nonResource") return urlMatches(rule, request.path)
  return (
    has(rule.apiGroups, request.group) &&
    resourceMatches(rule, request.resource, request.subresource) &&
    (rule.resourceNames.length === 0 || (request.name !== undefined && rule.resourceNames.includes(request.name)))
  )
}

/** The user name of a service account, as its tokens authenticate. */
export const serviceAccountUser = (namespace: string, name: string): string => `system:serviceaccount:${namespace}:${name}`

/** The groups every service account of a namespace is in (besides system:authenticated). */
export const serviceAccountGroups = (namespace: string): ReadonlyArray<string> => ["system:serviceaccounts", `system:serviceaccounts:${namespace}`]

/** A subject of a binding in `namespace` ("" for a ClusterRoleBinding) the user is, or undefined. */
const subjectFor = (user: UserInfo, subjects: unknown, namespace: string): Record<string, unknown> | undefined =>
  (Array.isArray(subjects) ? subjects : []).filter(isJsonObject).find((s) => {
    const name = typeof s["name"] === "string" ? s["name"] : ""
    switch (s["kind"]) {
      case "User":
        return name === user.name
      case "Group":
        return user.groups.includes(name)
      case "ServiceAccount": {
        const saNamespace = typeof s["namespace"] === "string" && s["namespace"] !== "" ? s["namespace"] : namespace
        return saNamespace !== "" && serviceAccountUser(saNamespace, name) === user.name
      }
      default:
        return false
    }
  })

/** Where a rule came from, in the words of the RBAC authorizer's reasons. */
export interface RuleSource {
  readonly binding: string
  readonly rules: ReadonlyArray<PolicyRule>
}

const text = (value: unknown): string => (typeof value === "string" ? value : "")

const describeSource = (binding: KubeObject, roleKind: string, roleName: string, subject: Record<string, unknown>): string => {
  const meta = isJsonObject(binding["metadata"]) ? binding["metadata"] : {}
  const where = binding["kind"] === "RoleBinding" ? `RoleBinding "${text(meta["name"])}/${text(meta["namespace"])}"` : `ClusterRoleBinding "${text(meta["name"])}"`
  const who = subject["kind"] === "ServiceAccount" ? `${text(subject["name"])}/${text(subject["namespace"]) || text(meta["namespace"])}` : text(subject["name"])
  return `${where} of ${roleKind} "${roleName}" to ${text(subject["kind"])} "${who}"`
}

/**
 * The rules granted to the user in `namespace` (cluster-wide ones only, when undefined), each group with
 * the binding that grants it: ClusterRoleBindings first, then the namespace's RoleBindings, as upstream visits them.
 */
export const rulesFor = (objects: RbacObjects, user: UserInfo, namespace: string | undefined): ReadonlyArray<RuleSource> => {
  const sources: Array<RuleSource> = []
  const visit = (binding: KubeObject, bindingNamespace: string): void => {
    const subject = subjectFor(user, binding["subjects"], bindingNamespace)
    if (subject === undefined) return
    const ref = isJsonObject(binding["roleRef"]) ? binding["roleRef"] : {}
    const name = text(ref["name"])
    const role = ref["kind"] === "Role" && bindingNamespace !== "" ? objects.role(bindingNamespace, name) : ref["kind"] === "ClusterRole" ? objects.clusterRole(name) : undefined
    sources.push({ binding: describeSource(binding, text(ref["kind"]), name, subject), rules: rulesOf(role) })
  }
  for (const binding of objects.clusterRoleBindings()) visit(binding, "")
  if (namespace !== undefined && namespace !== "") for (const binding of objects.roleBindings(namespace)) visit(binding, namespace)
  return sources
}

/** The group whose members may do anything, whatever RBAC says (kube-apiserver's privileged group). */
export const mastersGroup = "system:masters"

/** Whether RBAC allows the request, and the reason the RBAC authorizer gives when it does. */
export const rbacDecision = (objects: RbacObjects, user: UserInfo, request: RequestAttributes): { readonly allowed: boolean; readonly reason: string } => {
  if (user.groups.includes(mastersGroup)) return { allowed: true, reason: "" }
  const namespace = request.kind === "resource" ? request.namespace : undefined
  const source = rulesFor(objects, user, namespace).find((s) => s.rules.some((r) => ruleAllows(r, request)))
  return source === undefined ? { allowed: false, reason: "" } : { allowed: true, reason: `RBAC: allowed by ${source.binding}` }
}
