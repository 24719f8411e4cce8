// rbac.authorization.k8s.io/v1 RoleBinding: grants a Role, or a ClusterRole's rules, to subjects within its namespace.
import { defineKind } from "../../Kind.ts"
import { bindingColumns, bindingDescriptions, bindingFields, checkBinding, defaultBinding, pathSegmentNameProblems, rbacGroup, rbacMessages } from "../RbacShapes.ts"

/** RoleBinding. */
export const roleBinding = defineKind({
  group: rbacGroup,
  versions: ["v1"],
  kind: "RoleBinding",
  listKind: "RoleBindingList",
  plural: "rolebindings",
  singular: "rolebinding",
  shortNames: [],
  namespaced: true,
  hasStatus: false,
  protobuf: rbacMessages,
  protobufMessage: "rbac.v1.RoleBinding",
  fields: bindingFields,
  strategy: { defaults: defaultBinding, validate: checkBinding(true), nameProblems: pathSegmentNameProblems },
  columns: bindingColumns,
  descriptions: bindingDescriptions
})
