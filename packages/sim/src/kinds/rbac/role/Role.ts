// rbac.authorization.k8s.io/v1 Role: policy rules granted within one namespace.
import { defineKind } from "../../Kind.ts"
import { checkRole, pathSegmentNameProblems, rbacGroup, rbacMessages, roleColumns, roleFields, ruleDescriptions } from "../RbacShapes.ts"

/** Role. */
export const role = defineKind({
  group: rbacGroup,
  versions: ["v1"],
  kind: "Role",
  listKind: "RoleList",
  plural: "roles",
  singular: "role",
  shortNames: [],
  namespaced: true,
  hasStatus: false,
  protobuf: rbacMessages,
  protobufMessage: "rbac.v1.Role",
  fields: roleFields(false),
  strategy: { validate: checkRole(true), nameProblems: pathSegmentNameProblems },
  columns: roleColumns,
  descriptions: ruleDescriptions
})
