// rbac.authorization.k8s.io/v1 ClusterRole: policy rules granted cluster-wide (by a ClusterRoleBinding)
// or in one namespace (by a RoleBinding), possibly aggregated from other ClusterRoles by label.
import { defineKind } from "../../Kind.ts"
import { checkRole, pathSegmentNameProblems, rbacGroup, rbacMessages, roleColumns, roleFields, ruleDescriptions } from "../RbacShapes.ts"

/** ClusterRole. */
export const clusterRole = defineKind({
  group: rbacGroup,
  versions: ["v1"],
  kind: "ClusterRole",
  listKind: "ClusterRoleList",
  plural: "clusterroles",
  singular: "clusterrole",
  shortNames: [],
  namespaced: false,
  hasStatus: false,
  protobuf: rbacMessages,
  protobufMessage: "rbac.v1.ClusterRole",
  fields: roleFields(true),
  strategy: { validate: checkRole(false), nameProblems: pathSegmentNameProblems },
  columns: roleColumns,
  descriptions: {
    ...ruleDescriptions,
    aggregationRule: "How the rules are built from other ClusterRoles: the rules of every ClusterRole a selector matches are written into this one's.",
    "aggregationRule.clusterRoleSelectors": "Label selectors; a ClusterRole any of them matches contributes its rules."
  }
})
