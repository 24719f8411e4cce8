// RBAC objects as tests write them: roles, cluster roles, bindings and their subjects.
import type { KubeObject } from "../src/Api.ts"

/** The RBAC API group. */
export const rbac = "rbac.authorization.k8s.io"

/** A PolicyRule on resources (with resourceNames when given). */
export const rule = (verbs: ReadonlyArray<string>, apiGroups: ReadonlyArray<string>, resources: ReadonlyArray<string>, resourceNames?: ReadonlyArray<string>) => ({
  verbs,
  apiGroups,
  resources,
  ...(resourceNames === undefined ? {} : { resourceNames })
})

/** A Role. */
export const role = (namespace: string, name: string, rules: ReadonlyArray<object>): KubeObject => ({ apiVersion: `${rbac}/v1`, kind: "Role", metadata: { name, namespace }, rules })

/** A ClusterRole, with labels and an aggregationRule when given. */
export const clusterRole = (name: string, rules: ReadonlyArray<object>, labels?: Record<string, string>, aggregationRule?: object): KubeObject => ({
  apiVersion: `${rbac}/v1`,
  kind: "ClusterRole",
  metadata: { name, ...(labels === undefined ? {} : { labels }) },
  rules,
  ...(aggregationRule === undefined ? {} : { aggregationRule })
})

/** A subject: a ServiceAccount (its namespace optional in a RoleBinding), a User or a Group. */
export const subject = (kind: "ServiceAccount" | "User" | "Group", name: string, namespace?: string) =>
  kind === "ServiceAccount" ? { kind, name, ...(namespace === undefined ? {} : { namespace }) } : { kind, name, apiGroup: rbac }

/** A RoleBinding to a Role or ClusterRole. */
export const roleBinding = (namespace: string, name: string, roleKind: "Role" | "ClusterRole", roleName: string, subjects: ReadonlyArray<object>): KubeObject => ({
  apiVersion: `${rbac}/v1`,
  kind: "RoleBinding",
  metadata: { name, namespace },
  roleRef: { apiGroup: rbac, kind: roleKind, name: roleName },
  subjects
})

/** A ClusterRoleBinding to a ClusterRole. */
export const clusterRoleBinding = (name: string, roleName: string, subjects: ReadonlyArray<object>): KubeObject => ({
  apiVersion: `${rbac}/v1`,
  kind: "ClusterRoleBinding",
  metadata: { name },
  roleRef: { apiGroup: rbac, kind: "ClusterRole", name: roleName },
  subjects
})
