"""Watching TrainJobs through a create, its status changes and a delete, as watch.Watch().stream does."""

import unittest

from kubernetes import client, watch

from harness import GROUP, NAMESPACE, PLURAL, VERSION, api_client, condition, train_job, unique


class WatchTrainJobs(unittest.TestCase):
    def test_streams_create_status_and_delete(self):
        api = api_client()
        custom = client.CustomObjectsApi(api)
        name = unique("watched")
        start = custom.list_namespaced_custom_object(GROUP, VERSION, NAMESPACE, PLURAL)
        custom.create_namespaced_custom_object(GROUP, VERSION, NAMESPACE, PLURAL, train_job(name))
        seen = []
        deleted = False
        w = watch.Watch()
        for event in w.stream(
            custom.list_namespaced_custom_object, GROUP, VERSION, NAMESPACE, PLURAL,
            resource_version=start["metadata"]["resourceVersion"], timeout_seconds=120,
        ):
            job = event["object"]
            if job["metadata"]["name"] != name:
                continue
            seen.append((event["type"], [c["type"] for c in (job.get("status") or {}).get("conditions") or [] if c["status"] == "True"]))
            complete = condition(job, "Complete")
            if not deleted and complete is not None and complete["status"] == "True":
                custom.delete_namespaced_custom_object(GROUP, VERSION, NAMESPACE, PLURAL, name)
                deleted = True
            if event["type"] == "DELETED":
                w.stop()
        types = [t for t, _ in seen]
        self.assertEqual(types[0], "ADDED")
        self.assertIn("MODIFIED", types)
        self.assertEqual(types[-1], "DELETED")
        self.assertIn("Complete", seen[-1][1])


if __name__ == "__main__":
    unittest.main()
