// apps/v1 Deployment: a replicated pod template. The simulator stores, defaults and validates it; no
// controller rolls it out, so its status stays as created (no ReplicaSets or pods are made).
import { defineKind } from "../../Kind.ts"
import { withoutKey } from "../../../apiserver/store/JsonValue.ts"
import { ageColumn, column, count, field, nameColumn, records, text } from "../../Columns.ts"
import { podMessages } from "../../core/pod/PodMessages.ts"
import { labelSelectorText } from "../../core/Selectors.ts"
import { checkDeployment, deploymentDefaults, deploymentFields } from "./DeploymentRules.ts"
import { deploymentMessages } from "./DeploymentMessages.ts"

const containers = (o: unknown) => records(field(o, "spec", "template", "spec", "containers"))

/** Deployment. */
export const deployment = defineKind({
  group: "apps",
  versions: ["v1"],
  kind: "Deployment",
  listKind: "DeploymentList",
  plural: "deployments",
  singular: "deployment",
  shortNames: ["deploy"],
  namespaced: true,
  hasStatus: true,
  protobuf: { ...podMessages, ...deploymentMessages },
  protobufMessage: "apps.v1.Deployment",
  fields: deploymentFields,
  // A new Deployment's status is empty (its counts are omitted when zero), whatever was sent.
  strategy: { defaults: deploymentDefaults, prepareForCreate: (o) => ({ ...withoutKey(o, "status"), status: {} }), validate: checkDeployment },
  columns: [
    nameColumn,
    column("Ready", "string", "Number of ready replicas out of those desired.", (o) => `${count(field(o, "status", "readyReplicas"))}/${count(field(o, "spec", "replicas"))}`),
    column("Up-to-date", "integer", "Number of replicas running the current pod template.", (o) => count(field(o, "status", "updatedReplicas"))),
    column("Available", "integer", "Number of replicas ready for at least minReadySeconds.", (o) => count(field(o, "status", "availableReplicas"))),
    ageColumn,
    column("Containers", "string", "Names of each container in the template.", (o) => containers(o).map((c) => text(c["name"]) ?? "").join(","), 1),
    column("Images", "string", "Images in the template.", (o) => containers(o).map((c) => text(c["image"]) ?? "").join(","), 1),
    column("Selector", "string", "Label selector for the pods.", (o) => labelSelectorText(field(o, "spec", "selector")), 1)
  ],
  descriptions: {
    spec: "The desired behaviour of the Deployment.",
    "spec.replicas": "Number of desired pods (default 1).",
    "spec.selector": "Label selector for the pods; it must match the template's labels.",
    "spec.template": "The pods to run.",
    "spec.strategy": "How old pods are replaced by new ones: RollingUpdate (the default) or Recreate.",
    "spec.revisionHistoryLimit": "Old ReplicaSets to keep for rollback (default 10).",
    "spec.progressDeadlineSeconds": "Seconds for a rollout to progress before it is reported failed (default 600).",
    "spec.minReadySeconds": "Seconds a new pod must be ready before it counts as available.",
    "spec.paused": "Whether the rollout is paused.",
    status: "The most recently observed status of the Deployment."
  }
})
