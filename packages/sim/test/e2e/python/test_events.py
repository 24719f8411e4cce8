"""Listing events, each in the shape a real cluster gives it: the scheduler's through events.k8s.io/v1
(eventTime in microseconds, no first/last timestamps, an action), the kubelet's and the Job
controller's through client-go's core/v1 recorder (timestamps, a count, their source)."""

import json
import re
import unittest

from kubernetes import client

from harness import NAMESPACE, api_client, create_train_job, pods_of, unique, until

NEVER = {
    "manager": "example.org/probe",
    "trainingRuntimeSpec": {"template": {"spec": {"replicatedJobs": [
        {"name": "node", "template": {"spec": {"template": {"spec": {"nodeSelector": {"example.org/probe": "never"}}}}}}
    ]}}},
}

# The fields a real cluster's core/v1 Event carries in JSON, by the recorder that wrote it.
SCHEDULER_KEYS = {"metadata", "involvedObject", "reason", "message", "source", "firstTimestamp", "lastTimestamp", "type", "eventTime", "action", "reportingComponent", "reportingInstance"}
RECORD_KEYS = {"metadata", "involvedObject", "reason", "message", "source", "firstTimestamp", "lastTimestamp", "count", "type", "eventTime", "reportingComponent", "reportingInstance"}
MICRO = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$")
SECOND = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")


class EventShapes(unittest.TestCase):
    def test_every_event_has_a_real_clusters_shape(self):
        api = api_client()
        core = client.CoreV1Api(api)
        ran, stuck = unique("ran"), unique("stuck")
        create_train_job(api, ran)
        create_train_job(api, stuck, runtimePatches=[NEVER])
        self.assertTrue(until(lambda: [p for p in pods_of(api, ran) if p.status.phase == "Running"]))
        reasons = lambda: {e.reason for e in core.list_namespaced_event(NAMESPACE).items}
        self.assertTrue(until(lambda: {"Scheduled", "FailedScheduling", "Started", "SuccessfulCreate"} <= reasons()))

        typed = core.list_namespaced_event(NAMESPACE).items
        raw = json.loads(core.list_namespaced_event(NAMESPACE, _preload_content=False).data)["items"]
        self.assertEqual(len(typed), len(raw))
        for event, body in zip(typed, raw):
            with self.subTest(reason=event.reason, component=event.reporting_component):
                self.assertIn(event.type, ("Normal", "Warning"))
                self.assertTrue(event.metadata.name.startswith(event.involved_object.name + "."))
                keys = set(body) - {"apiVersion", "kind"}
                if event.reporting_component == "default-scheduler":
                    self.assertEqual(keys, SCHEDULER_KEYS)
                    self.assertRegex(body["eventTime"], MICRO)
                    self.assertIsNone(event.first_timestamp)
                    self.assertIsNone(event.last_timestamp)
                    self.assertIsNone(event.count)
                    self.assertEqual(event.action, "Binding" if event.reason == "Scheduled" else "Scheduling")
                    self.assertTrue(event.reporting_instance.startswith("default-scheduler-"))
                else:
                    self.assertEqual(keys, RECORD_KEYS)
                    self.assertIsNone(body["eventTime"])
                    self.assertRegex(body["firstTimestamp"], SECOND)
                    self.assertEqual(event.first_timestamp, event.last_timestamp)
                    self.assertEqual(event.count, 1)
                    self.assertIsNone(event.action)
                    self.assertEqual(event.source.component, event.reporting_component)
                    self.assertIn(event.reporting_component, ("kubelet", "job-controller"))
                    # The kubelet reports its node; the Job controller names no host, as upstream.
                    self.assertEqual(event.reporting_instance, event.source.host or "")


if __name__ == "__main__":
    unittest.main()
