// The ClusterTrainingRuntime the simulator benches point their TrainJobs at: torch, one `node` trainer step.

/** A ClusterTrainingRuntime named torch-distributed with one trainer step. */
export const benchRuntime = {
  apiVersion: "trainer.kubeflow.org/v1alpha1",
  kind: "ClusterTrainingRuntime",
  metadata: { name: "torch-distributed" },
  spec: {
    mlPolicy: { numNodes: 1, torch: {} },
    template: { spec: { replicatedJobs: [{ name: "node", template: { metadata: { labels: { "trainer.kubeflow.org/trainjob-ancestor-step": "trainer" } }, spec: { template: { spec: { containers: [{ name: "node", image: "example.org/train:1" }] } } } } }] } }
  }
}

/** The TrainingRuntime `dioptra-torch` in `namespace` the job service benches dispatch with (torch, one `node`
 * trainer step), and the reference a queue's backend names it by. */
export const dioptraTorch = (namespace) => ({
  ref: { kind: "TrainingRuntime", name: "dioptra-torch" },
  manifest: {
    apiVersion: "trainer.kubeflow.org/v1alpha1",
    kind: "TrainingRuntime",
    metadata: { name: "dioptra-torch", namespace, labels: { "trainer.kubeflow.org/framework": "torch" } },
    spec: {
      mlPolicy: { numNodes: 1, torch: {} },
      template: { spec: { replicatedJobs: [{ name: "node", template: { metadata: { labels: { "trainer.kubeflow.org/trainjob-ancestor-step": "trainer" } }, spec: { template: { spec: { containers: [{ name: "node", image: "pytorch/pytorch:2" }] } } } } }] } }
    }
  }
})
