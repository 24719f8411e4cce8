"""Trainer's public version ConfigMap, which Kubeflow's TrainerClient reads on every start."""

import unittest

from kubernetes import client

from harness import api_client


class VersionConfigMap(unittest.TestCase):
    def test_reads_trainers_version(self):
        api = client.CoreV1Api(api_client())
        cm = api.read_namespaced_config_map("kubeflow-trainer-public", "kubeflow-system")
        self.assertEqual(cm.data, {"kubeflow_trainer_version": "v2.3.0"})
        listed = api.list_namespaced_config_map("kubeflow-system", field_selector="metadata.name=kubeflow-trainer-public")
        self.assertEqual([c.metadata.name for c in listed.items], ["kubeflow-trainer-public"])

    def test_missing_configmap_is_a_404(self):
        api = client.CoreV1Api(api_client())
        with self.assertRaises(client.ApiException) as raised:
            api.read_namespaced_config_map("nope", "kubeflow-system")
        self.assertEqual(raised.exception.status, 404)


if __name__ == "__main__":
    unittest.main()
