// rbac.authorization.k8s.io/v1 ClusterRoleBinding: grants a ClusterRole to subjects in every namespace.
import { defineKind } from "../../Kind.ts"
import { bindingColumns, bindingDescriptions, bindingFields, checkBinding, defaultBinding, pathSegmentNameProblems, rbacGroup, rbacMessages } from "../RbacShapes.ts"

/** ClusterRoleBinding. */
export const clusterRoleBinding = defineKind({
  group: rbacGroup,
  versions: ["v1"],
  kind: "ClusterRoleBinding",
  listKind: "ClusterRoleBindingList",
  plural: "clusterrolebindings",
  singular: "clusterrolebinding",
  shortNames: [],
  namespaced: false,
  hasStatus: false,
  protobuf: rbacMessages,
  protobufMessage: "rbac.v1.ClusterRoleBinding",
  fields: bindingFields,
  strategy: { defaults: defaultBinding, validate: checkBinding(false), nameProblems: pathSegmentNameProblems },
  columns: bindingColumns,
  descriptions: bindingDescriptions
})
