"""queues, entrypoints and experiments: create, get, get_by_id, modify_by_id, delete_by_id."""

import unittest

from harness import PARAMETERS, TASK_GRAPH, logged_in_client, unique
from stdclient import StatusCodeError


class ResourcesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.client, cls.username, cls.group = logged_in_client()

    def assert_ref(self, ref, kind, id_, name):
        self.assertEqual((ref["id"], ref["name"]), (id_, name))
        self.assertTrue(ref["url"].endswith(f"/api/v1/{kind}/{id_}"), ref["url"])
        self.assertEqual(ref["group"]["id"], self.group)

    def test_queue_lifecycle(self):
        queues = self.client.queues
        name = unique("queue")
        queue = queues.create(self.group, name, "a stock queue")
        self.assertEqual((queue["name"], queue["description"], queue["group"]["id"]), (name, "a stock queue", self.group))
        for key in ("createdOn", "lastModifiedOn", "snapshotCreatedOn"):
            self.assertIn(key, queue)
        me = self.client.users.get_current()
        self.assertEqual((queue["user"]["id"], queue["user"]["username"]), (me["id"], me["username"]))
        self.assertTrue(queue["user"]["url"].endswith(f"/api/v1/users/{me['id']}"), queue["user"]["url"])
        # A queue a stock client makes has no backend: it says why its jobs would wait.
        self.assertNotIn("backend", queue)
        self.assertEqual(queue["gate"]["state"], "unproven")
        self.assertIn("no backend", queue["gate"]["reason"])
        self.assertEqual(queues.get_by_id(queue["id"])["id"], queue["id"])

        renamed = queues.modify_by_id(queue["id"], name + "-b", None)
        self.assertEqual((renamed["name"], renamed["description"]), (name + "-b", None))

        found = queues.get(search=f"name:{name}*", sort_by="name", descending=True)
        self.assertEqual([q["id"] for q in found["data"]], [queue["id"]])
        self.assertEqual(found["totalNumResults"], 1)
        self.assertEqual(queues.get(group_id=self.group, page_length=100)["index"], 0)

        with self.assertRaises(StatusCodeError) as taken:
            queues.create(self.group, name + "-b")
        self.assertEqual(taken.exception.status_code, 409)
        with self.assertRaises(StatusCodeError) as foreign:
            queues.create(self.group + 1000, unique("queue"))
        self.assertEqual(foreign.exception.status_code, 403)

        self.assertEqual(queues.delete_by_id(queue["id"]), {"status": "Success", "id": [queue["id"]]})
        with self.assertRaises(StatusCodeError) as gone:
            queues.get_by_id(queue["id"])
        self.assertEqual(gone.exception.status_code, 404)

    def test_entrypoint_and_experiment_lifecycle(self):
        queue = self.client.queues.create(self.group, unique("queue"))
        entrypoints = self.client.entrypoints
        name = unique("train")
        entrypoint = entrypoints.create(self.group, name, TASK_GRAPH, description="trains", parameters=PARAMETERS, queues=[queue["id"]])
        self.assertEqual(entrypoint["taskGraph"], TASK_GRAPH)
        self.assertEqual(entrypoint["parameters"], PARAMETERS)
        self.assertEqual(entrypoint["artifactParameters"], [])
        self.assertEqual(entrypoint["plugins"], [])
        self.assert_ref(entrypoint["queues"][0], "queues", queue["id"], queue["name"])
        self.assertEqual(entrypoints.get_by_id(entrypoint["id"])["taskGraph"], TASK_GRAPH)
        self.assertEqual(entrypoints.get(search=f"name:{name}")["data"][0]["id"], entrypoint["id"])

        changed = entrypoints.modify_by_id(entrypoint["id"], name, TASK_GRAPH, None, "retrains", PARAMETERS[:1], None, None)
        self.assertEqual((changed["description"], [p["name"] for p in changed["parameters"]], changed["queues"]), ("retrains", ["data_dir"], []))
        # The snapshots sub-collection: each snapshot as the entrypoint it was, oldest first, paged.
        snapshots = entrypoints.snapshots.get(entrypoint["id"], page_length=1)
        self.assertEqual((snapshots["totalNumResults"], snapshots["isComplete"], len(snapshots["data"])), (2, False, 1))
        self.assertEqual((snapshots["data"][0]["snapshot"], snapshots["data"][0]["latestSnapshot"]), (entrypoint["snapshot"], False))
        self.assertEqual(snapshots["data"][0]["parameters"], PARAMETERS)
        latest = entrypoints.snapshots.get_by_id(entrypoint["id"], changed["snapshot"])
        self.assertEqual((latest["latestSnapshot"], latest["description"], latest["taskGraph"]), (True, "retrains", TASK_GRAPH))

        with self.assertRaises(StatusCodeError) as bad_yaml:
            entrypoints.create(self.group, unique("bad"), "a: [unclosed")
        self.assertEqual(bad_yaml.exception.status_code, 400)
        self.assertIn("taskGraph", bad_yaml.exception.text)
        with self.assertRaises(StatusCodeError) as no_plugin:
            entrypoints.create(self.group, unique("plug"), TASK_GRAPH, parameters=PARAMETERS, plugins=[424242])
        self.assertEqual(no_plugin.exception.status_code, 404)

        experiments = self.client.experiments
        experiment = experiments.create(self.group, unique("exp"), "an experiment", [entrypoint["id"]])
        self.assert_ref(experiment["entrypoints"][0], "entrypoints", entrypoint["id"], name)
        self.assertEqual(experiments.get_by_id(experiment["id"])["name"], experiment["name"])
        self.assertEqual(experiments.get(search="description:*experiment*", page_length=100)["totalNumResults"] >= 1, True)
        other = entrypoints.create(self.group, unique("eval"), TASK_GRAPH, parameters=PARAMETERS)
        registered = experiments.entrypoints.create(experiment["id"], [other["id"]])
        self.assertEqual([ref["id"] for ref in registered], [entrypoint["id"], other["id"]])
        self.assert_ref(registered[1], "entrypoints", other["id"], other["name"])
        emptied = experiments.modify_by_id(experiment["id"], experiment["name"], None, None)
        self.assertEqual((emptied["description"], emptied["entrypoints"]), (None, []))
        with self.assertRaises(StatusCodeError) as missing:
            experiments.create(self.group, unique("exp"), None, [999999, 999998])
        self.assertEqual(missing.exception.status_code, 404)
        self.assertEqual(len(missing.exception.json()["detail"]), 2)

        self.assertEqual(experiments.delete_by_id(experiment["id"])["status"], "Success")
        self.assertEqual(entrypoints.delete_by_id(entrypoint["id"])["status"], "Success")
        with self.assertRaises(StatusCodeError) as gone:
            entrypoints.get_by_id(entrypoint["id"])
        self.assertEqual(gone.exception.status_code, 404)


if __name__ == "__main__":
    unittest.main()
