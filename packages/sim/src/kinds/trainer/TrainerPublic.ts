// The ConfigMap Trainer's manifests install for its SDK: `kubeflow-trainer-public` in Trainer's
// namespace, naming the installed release, readable by every authenticated user. Kubeflow's Python
// TrainerClient reads it on start to learn the control plane's version.
import type { KubeObject } from "../../Api.ts"

/** The Kubeflow Trainer release whose behaviour the simulator's Trainer models. */
export const trainerVersion = "v2.3.0"

/** The namespace Trainer's manifests install into. */
export const trainerNamespace = "kubeflow-system"

/** The name of Trainer's public ConfigMap. */
export const trainerPublicConfigMapName = "kubeflow-trainer-public"

/** Trainer's public ConfigMap as its manifests create it, with the modelled version. */
export const trainerPublicConfigMap = (): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: trainerPublicConfigMapName, namespace: trainerNamespace },
  data: { kubeflow_trainer_version: trainerVersion }
})
