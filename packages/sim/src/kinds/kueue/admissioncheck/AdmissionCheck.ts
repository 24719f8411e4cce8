// Kueue's AdmissionCheck (kueue.x-k8s.io): a check a workload must pass, besides quota, before admission.
import { defineKind } from "../../Kind.ts"
import { admissionCheckFields } from "./AdmissionCheckFields.ts"
import { checkAdmissionCheck } from "./AdmissionCheckRules.ts"
import { kueueApi } from "../KueueApi.ts"

/** AdmissionCheck. */
export const admissionCheck = defineKind({
  ...kueueApi,
  kind: "AdmissionCheck",
  listKind: "AdmissionCheckList",
  plural: "admissionchecks",
  singular: "admissioncheck",
  shortNames: ["ac"],
  namespaced: false,
  hasStatus: true,
  fields: admissionCheckFields,
  strategy: { validate: checkAdmissionCheck },
  descriptions: {
  spec: "A check a workload must pass, besides quota, before it is admitted.",
  "spec.controllerName": "The controller that decides this check."
}
})
