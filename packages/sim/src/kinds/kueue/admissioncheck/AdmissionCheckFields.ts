// The fields of Kueue's AdmissionCheck CRD (kueue.x-k8s.io), the union of v1beta1's and v1beta2's.
import { condition, kindFields } from "../../core/CoreFields.ts"
import { type FieldTree, fields, listOf } from "../../../apiserver/validation/FieldTree.ts"

/** An AdmissionCheck. */
export const admissionCheckFields: FieldTree = kindFields({
  spec: fields({
    controllerName: "string",
    parameters: fields({ apiGroup: "string", kind: "string", name: "string" }),
    retryDelayMinutes: "integer"
  }),
  status: fields({ conditions: listOf(condition) })
})
