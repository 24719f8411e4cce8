// rbac.authorization.k8s.io/v1's shapes and rules, shared by its four kinds as upstream's
// pkg/apis/rbac/validation shares them: a policy rule (verbs on API groups, resources and resource
// names, or on non-resource URLs), a role reference, subjects, and the path-segment names RBAC objects
// may take (colons allowed, so `system:aggregate-to-view` is a name).
import { type FieldError, invalidValue, notSupported, requiredValue } from "../../apiserver/validation/FieldErrors.ts"
import { type FieldTree, fields, listOf, mapOf } from "../../apiserver/validation/FieldTree.ts"
import { isJsonObject, jsonEqual } from "../../apiserver/store/JsonValue.ts"
import { dns1123SubdomainProblems } from "@dispatch/kube"
import { objectMeta } from "../core/CoreFields.ts"
import { ageColumn, column, field, nameColumn, records, text, type Column } from "../Columns.ts"

/** The RBAC API group. */
export const rbacGroup = "rbac.authorization.k8s.io"

/** A PolicyRule. */
export const policyRule: FieldTree = fields({
  verbs: listOf("string"),
  apiGroups: listOf("string"),
  resources: listOf("string"),
  resourceNames: listOf("string"),
  nonResourceURLs: listOf("string")
})

const labelSelector: FieldTree = fields({
  matchLabels: mapOf("string"),
  matchExpressions: listOf(fields({ key: "string", operator: "string", values: listOf("string") }))
})

/** The fields of a Role (and, with `aggregationRule`, a ClusterRole). */
export const roleFields = (aggregation: boolean): FieldTree =>
  fields({
    apiVersion: "string",
    kind: "string",
    metadata: objectMeta,
    rules: listOf(policyRule),
    ...(aggregation ? { aggregationRule: fields({ clusterRoleSelectors: listOf(labelSelector) }) } : {})
  })

/** The fields of a RoleBinding or ClusterRoleBinding. */
export const bindingFields: FieldTree = fields({
  apiVersion: "string",
  kind: "string",
  metadata: objectMeta,
  subjects: listOf(fields({ kind: "string", apiGroup: "string", name: "string", namespace: "string" })),
  roleRef: fields({ apiGroup: "string", kind: "string", name: "string" })
})

/** Why `name` cannot name an RBAC object (a path segment: not "." or "..", no "/" or "%"), or none. */
export const pathSegmentNameProblems = (name: string): ReadonlyArray<string> => [
  ...(name === "." || name === ".." ? [`may not be '${name}'`] : []),
  ...["/", "%"].filter((c) => name.includes(c)).map((c) => `may not contain '${c}'`)
]

const strings = (value: unknown): ReadonlyArray<string> => (Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [])

/** Every problem with one policy rule at `path` (a namespaced Role's rules may not name non-resource URLs). */
export const policyRuleProblems = (rule: Record<string, unknown>, path: string, namespaced: boolean): ReadonlyArray<FieldError> => {
  const errors: Array<FieldError> = []
  if (strings(rule["verbs"]).length === 0) errors.push(requiredValue(`${path}.verbs`, "verbs must contain at least one value"))
  const urls = strings(rule["nonResourceURLs"])
  if (urls.length > 0) {
    if (namespaced) errors.push(invalidValue(`${path}.nonResourceURLs`, urls, "namespaced rules cannot apply to non-resource URLs"))
    if (strings(rule["apiGroups"]).length > 0 || strings(rule["resources"]).length > 0 || strings(rule["resourceNames"]).length > 0)
      errors.push(invalidValue(`${path}.nonResourceURLs`, urls, "rules cannot apply to both regular resources and non-resource URLs"))
    return errors
  }
  if (strings(rule["apiGroups"]).length === 0) errors.push(requiredValue(`${path}.apiGroups`, "resource rules must supply at least one api group"))
  if (strings(rule["resources"]).length === 0) errors.push(requiredValue(`${path}.resources`, "resource rules must supply at least one resource"))
  return errors
}

/** Every problem with a Role's or ClusterRole's rules. */
export const checkRole =
  (namespaced: boolean) =>
  (object: Record<string, unknown>): ReadonlyArray<FieldError> =>
    records(object["rules"]).flatMap((rule, i) => policyRuleProblems(rule, `rules[${i}]`, namespaced))

const subjectKinds = ["ServiceAccount", "User", "Group"]

/** Every problem with one subject at `path`; a ClusterRoleBinding's ServiceAccount must name its namespace. */
export const subjectProblems = (subject: Record<string, unknown>, path: string, namespaced: boolean): ReadonlyArray<FieldError> => {
  const errors: Array<FieldError> = []
  const name = typeof subject["name"] === "string" ? subject["name"] : ""
  const group = typeof subject["apiGroup"] === "string" ? subject["apiGroup"] : ""
  if (name === "") errors.push(requiredValue(`${path}.name`))
  switch (subject["kind"]) {
    case "ServiceAccount":
      if (name !== "") for (const p of dns1123SubdomainProblems(name)) errors.push(invalidValue(`${path}.name`, name, p))
      if (group !== "") errors.push(notSupported(`${path}.apiGroup`, group, [""]))
      if (!namespaced && (typeof subject["namespace"] !== "string" || subject["namespace"] === "")) errors.push(requiredValue(`${path}.namespace`))
      break
    case "User":
    case "Group":
      if (group !== rbacGroup) errors.push(notSupported(`${path}.apiGroup`, group, [rbacGroup]))
      break
    default:
      errors.push(notSupported(`${path}.kind`, subject["kind"] ?? "", subjectKinds))
  }
  return errors
}

/** Every problem with a binding (`old` on update: its roleRef may never change). */
export const checkBinding =
  (namespaced: boolean) =>
  (object: Record<string, unknown>, old: Record<string, unknown> | undefined): ReadonlyArray<FieldError> => {
    const ref = isJsonObject(object["roleRef"]) ? object["roleRef"] : {}
    const errors: Array<FieldError> = []
    if (ref["apiGroup"] !== rbacGroup) errors.push(notSupported("roleRef.apiGroup", ref["apiGroup"] ?? "", [rbacGroup]))
    const kinds = namespaced ? ["Role", "ClusterRole"] : ["ClusterRole"]
    if (typeof ref["kind"] !== "string" || !kinds.includes(ref["kind"])) errors.push(notSupported("roleRef.kind", ref["kind"] ?? "", kinds))
    const name = typeof ref["name"] === "string" ? ref["name"] : ""
    if (name === "") errors.push(requiredValue("roleRef.name"))
    else for (const p of pathSegmentNameProblems(name)) errors.push(invalidValue("roleRef.name", name, p))
    errors.push(...records(object["subjects"]).flatMap((s, i) => subjectProblems(s, `subjects[${i}]`, namespaced)))
    if (old !== undefined && !jsonEqual(object["roleRef"], old["roleRef"])) errors.push(invalidValue("roleRef", object["roleRef"], "cannot change roleRef"))
    return errors
  }

/** A binding with upstream's defaults: roleRef's and User/Group subjects' apiGroup the RBAC group when empty. */
export const defaultBinding = (object: Record<string, unknown>): Record<string, unknown> => {
  const ref = isJsonObject(object["roleRef"]) ? object["roleRef"] : undefined
  const subjects = Array.isArray(object["subjects"]) ? object["subjects"] : undefined
  const defaulted = (s: unknown): unknown =>
    isJsonObject(s) && (s["apiGroup"] === undefined || s["apiGroup"] === "") && (s["kind"] === "User" || s["kind"] === "Group") ? { ...s, apiGroup: rbacGroup } : s
  return {
    ...object,
    ...(ref !== undefined && (ref["apiGroup"] === undefined || ref["apiGroup"] === "") ? { roleRef: { ...ref, apiGroup: rbacGroup } } : {}),
    ...(subjects === undefined ? {} : { subjects: subjects.map(defaulted) })
  }
}

/** CREATED AT, as kubectl prints a role's: the creation time in RFC 3339. */
export const createdAtColumn: Column = column("Created At", "date", "Time at which the object was created.", (o) => text(field(o, "metadata", "creationTimestamp")))

/** The columns of Role and ClusterRole. */
export const roleColumns: ReadonlyArray<Column> = [nameColumn, createdAtColumn]

// Upstream prints a binding's subjects of a kind joined by ", ", and an empty string (not null) when there are none.
const subjectsOf = (o: unknown, kind: string): string => {
  const names = records(field(o, "subjects"))
    .filter((s) => s["kind"] === kind)
    .map((s) => (kind === "ServiceAccount" ? `${typeof s["namespace"] === "string" ? s["namespace"] : ""}/${String(s["name"] ?? "")}` : String(s["name"] ?? "")))
  return names.join(", ")
}

/** The columns of RoleBinding and ClusterRoleBinding: NAME ROLE AGE, and USERS GROUPS SERVICEACCOUNTS with -o wide. */
export const bindingColumns: ReadonlyArray<Column> = [
  nameColumn,
  column("Role", "string", "Role indicates the role the binding references.", (o) => `${String(field(o, "roleRef", "kind") ?? "")}/${String(field(o, "roleRef", "name") ?? "")}`),
  ageColumn,
  column("Users", "string", "Users in the binding.", (o) => subjectsOf(o, "User"), 1),
  column("Groups", "string", "Groups in the binding.", (o) => subjectsOf(o, "Group"), 1),
  column("ServiceAccounts", "string", "ServiceAccounts in the binding.", (o) => subjectsOf(o, "ServiceAccount"), 1)
]

/** The protobuf field tables of rbac/v1's messages. */
export const rbacMessages: Readonly<Record<string, string>> = {
  "rbac.v1.PolicyRule": "1:verbs:string:r 2:apiGroups:string:ro 3:resources:string:ro 4:resourceNames:string:ro 5:nonResourceURLs:string:ro",
  "rbac.v1.Role": "1:metadata:meta.v1.ObjectMeta:o 2:rules:rbac.v1.PolicyRule:r",
  "rbac.v1.ClusterRole": "1:metadata:meta.v1.ObjectMeta:o 2:rules:rbac.v1.PolicyRule:r 3:aggregationRule:rbac.v1.AggregationRule:op",
  "rbac.v1.AggregationRule": "1:clusterRoleSelectors:meta.v1.LabelSelector:ro",
  "rbac.v1.Subject": "1:kind:string 2:apiGroup:string:o 3:name:string 4:namespace:string:o",
  "rbac.v1.RoleRef": "1:apiGroup:string 2:kind:string 3:name:string",
  "rbac.v1.RoleBinding": "1:metadata:meta.v1.ObjectMeta:o 2:subjects:rbac.v1.Subject:ro 3:roleRef:rbac.v1.RoleRef",
  "rbac.v1.ClusterRoleBinding": "1:metadata:meta.v1.ObjectMeta:o 2:subjects:rbac.v1.Subject:ro 3:roleRef:rbac.v1.RoleRef"
}

/** What `kubectl explain` says of the shared fields. */
export const ruleDescriptions: Readonly<Record<string, string>> = {
  rules: "The PolicyRules this role grants.",
  "rules.verbs": "Verbs the rule allows (get, list, watch, create, update, patch, delete, deletecollection, or '*' for all).",
  "rules.apiGroups": "API groups of the resources (\"\" the core group, '*' every group).",
  "rules.resources": "Resources the rule applies to, with '/subresource' for a subresource ('*' for all).",
  "rules.resourceNames": "An optional allow list of object names; empty means every object.",
  "rules.nonResourceURLs": "Non-resource URL paths (a trailing '*' matches a prefix); only in ClusterRoles, never with resources."
}

/** What `kubectl explain` says of a binding's fields. */
export const bindingDescriptions: Readonly<Record<string, string>> = {
  subjects: "The users, groups and service accounts the role is granted to.",
  "subjects.kind": "ServiceAccount, User or Group.",
  "subjects.apiGroup": "\"\" for ServiceAccount, rbac.authorization.k8s.io for User and Group.",
  "subjects.name": "The subject's name.",
  "subjects.namespace": "The service account's namespace.",
  roleRef: "The Role or ClusterRole granted; it cannot change once set.",
  "roleRef.apiGroup": "rbac.authorization.k8s.io.",
  "roleRef.kind": "Role or ClusterRole.",
  "roleRef.name": "The role's name."
}
