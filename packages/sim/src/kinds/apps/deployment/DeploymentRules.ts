// An apps/v1 Deployment's schema, defaults and rules, as the API server applies them: replicas 1, a
// RollingUpdate strategy of 25% surge and 25% unavailable, 10 old ReplicaSets kept, 600s to progress, and
// core/v1's pod template defaults; a selector that the template's labels match, and a template with
// containers that restart Always.
import { type FieldError, forbidden, invalidValue, notSupported, requiredValue } from "../../../apiserver/validation/FieldErrors.ts"
import type { FieldTree } from "../../../apiserver/validation/FieldTree.ts"
import { isJsonObject } from "../../../apiserver/store/JsonValue.ts"
import { labelSelectorOf, matchesLabels } from "../../../apiserver/lists/LabelSelector.ts"
import { withDefaults } from "../../Defaults.ts"
import { kindMessageFields } from "../../MessageFields.ts"
import { podMessages } from "../../core/pod/PodMessages.ts"
import { podTemplateDefaults } from "../../core/pod/PodTemplateDefaults.ts"
import { deploymentMessages } from "./DeploymentMessages.ts"

type Json = Record<string, unknown>

const object = (value: unknown): Json => (isJsonObject(value) ? value : {})

/** The fields of a Deployment: every field of apps/v1's types, the pod template's included. */
export const deploymentFields: FieldTree = kindMessageFields({ ...podMessages, ...deploymentMessages }, "apps.v1.Deployment")

const strategyDefaults = (strategy: Json): Json => {
  const out = withDefaults(strategy, { type: "RollingUpdate" }) as Json
  if (out["type"] !== "RollingUpdate") return out
  return { ...out, rollingUpdate: withDefaults(object(out["rollingUpdate"]), { maxUnavailable: "25%", maxSurge: "25%" }) }
}

/** A Deployment with apps/v1's defaults filled in. */
export const deploymentDefaults = (deployment: Json): Json => {
  if (!isJsonObject(deployment["spec"])) return deployment
  const spec = withDefaults(deployment["spec"], { replicas: 1, revisionHistoryLimit: 10, progressDeadlineSeconds: 600 }) as Json
  return { ...deployment, spec: { ...spec, strategy: strategyDefaults(object(spec["strategy"])), template: podTemplateDefaults(spec["template"]) } }
}

const nonNegative = (spec: Json, key: string): ReadonlyArray<FieldError> => {
  const value = spec[key]
  return typeof value === "number" && value < 0 ? [invalidValue(`spec.${key}`, value, "must be greater than or equal to 0")] : []
}

const containerErrors = (containers: unknown, at: string): ReadonlyArray<FieldError> => {
  if (!Array.isArray(containers) || containers.length === 0) return [requiredValue(at)]
  return containers.flatMap((c, i) => {
    const container = object(c)
    return [
      ...(typeof container["name"] === "string" && container["name"] !== "" ? [] : [requiredValue(`${at}[${i}].name`)]),
      ...(typeof container["image"] === "string" && container["image"] !== "" ? [] : [requiredValue(`${at}[${i}].image`)])
    ]
  })
}

const selectorErrors = (spec: Json): ReadonlyArray<FieldError> => {
  const selector = spec["selector"]
  if (!isJsonObject(selector)) return [requiredValue("spec.selector")]
  const requirements = labelSelectorOf(selector)
  if (requirements === undefined) return [invalidValue("spec.selector", selector, "not a valid selector")]
  if (requirements.length === 0) return [invalidValue("spec.selector", selector, "empty selector is invalid for deployment")]
  const labels = object(object(object(spec["template"])["metadata"])["labels"])
  const strings = Object.fromEntries(Object.entries(labels).map(([k, v]) => [k, String(v)]))
  return matchesLabels(requirements, strings) ? [] : [invalidValue("spec.template.metadata.labels", labels, "`selector` does not match template `labels`")]
}

/** Every problem beyond the schema's types with a Deployment about to be stored. */
export const checkDeployment = (deployment: Json): ReadonlyArray<FieldError> => {
  const spec = object(deployment["spec"])
  const podSpec = object(object(spec["template"])["spec"])
  const strategy = object(spec["strategy"])
  const restart = podSpec["restartPolicy"]
  return [
    ...nonNegative(spec, "replicas"),
    ...nonNegative(spec, "minReadySeconds"),
    ...nonNegative(spec, "revisionHistoryLimit"),
    ...selectorErrors(spec),
    ...containerErrors(podSpec["containers"], "spec.template.spec.containers"),
    ...(restart === undefined || restart === "Always" ? [] : [notSupported("spec.template.spec.restartPolicy", restart, ["Always"])]),
    ...(strategy["type"] === undefined || strategy["type"] === "RollingUpdate" || strategy["type"] === "Recreate" ? [] : [notSupported("spec.strategy.type", strategy["type"], ["Recreate", "RollingUpdate"])]),
    ...(strategy["type"] === "Recreate" && strategy["rollingUpdate"] !== undefined ? [forbidden("spec.strategy.rollingUpdate", "may not be specified when strategy `type` is 'Recreate'")] : [])
  ]
}
