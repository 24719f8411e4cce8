"""experiments.jobs and jobs: every job method of the client, against a queue a stock client made (no backend)."""

import datetime
import unittest
import uuid

from harness import PARAMETERS, TASK_GRAPH, logged_in_client, unique
from stdclient import StatusCodeError


class JobsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.client, cls.username, cls.group = logged_in_client()
        cls.queue = cls.client.queues.create(cls.group, unique("queue"))
        cls.entrypoint = cls.client.entrypoints.create(cls.group, unique("train"), TASK_GRAPH, parameters=PARAMETERS, queues=[cls.queue["id"]])
        cls.experiment = cls.client.experiments.create(cls.group, unique("exp"), None, [cls.entrypoint["id"]])

    def new_job(self, **kwargs):
        kwargs.setdefault("values", {"epochs": "5"})
        kwargs.setdefault("swaps", {"training_method": "method_a"})
        return self.client.experiments.jobs.create(self.experiment["id"], self.entrypoint["id"], self.queue["id"], **kwargs)

    def status_of(self, error):
        return error.exception.status_code

    def test_create_read_list_status_and_delete(self):
        jobs, ejobs = self.client.jobs, self.client.experiments.jobs
        job = self.new_job(timeout="24h", description="a smoke run")
        self.assertEqual((job["status"], job["timeout"], job["description"]), ("queued", "24h", "a smoke run"))
        self.assertEqual((job["experiment"]["id"], job["entrypoint"]["id"], job["queue"]["id"]), (self.experiment["id"], self.entrypoint["id"], self.queue["id"]))
        self.assertEqual((job["group"]["id"], job["user"]["username"]), (self.group, self.username))
        self.assertTrue(job["queue"]["url"].endswith(f"/api/v1/queues/{self.queue['id']}"))
        for key in ("createdOn", "lastModifiedOn"):
            self.assertIn(key, job)
        # The stock queue has no backend: the job waits, and says why.
        self.assertIn("no backend", job["dispatch"]["reason"])

        self.assertEqual(jobs.get_by_id(job["id"])["id"], job["id"])
        self.assertEqual(ejobs.get_by_id(self.experiment["id"], job["id"])["timeout"], "24h")
        found = jobs.get(search="description:*smoke*", sort_by="createdOn", descending=True)
        self.assertEqual([j["id"] for j in found["data"]], [job["id"]])
        self.assertEqual(ejobs.get(self.experiment["id"], search="status:queued", page_length=100)["totalNumResults"] >= 1, True)

        self.assertEqual(jobs.get_status(job["id"])["status"], "queued")
        self.assertEqual(ejobs.set_status(self.experiment["id"], job["id"], "started")["status"], "started")
        self.assertEqual(ejobs.get_status(self.experiment["id"], job["id"])["status"], "started")
        with self.assertRaises(StatusCodeError) as bad_change:
            ejobs.set_status(self.experiment["id"], job["id"], "deferred")
        self.assertEqual(self.status_of(bad_change), 400)

        self.assertEqual(jobs.get_parameters(job["id"]), {"data_dir": "/data", "epochs": 5})
        self.assertEqual(jobs.get_artifact_parameters(job["id"]), {})

        self.assertEqual(ejobs.delete_by_id(self.experiment["id"], job["id"]), {"status": "Success", "id": [job["id"]]})
        with self.assertRaises(StatusCodeError) as gone:
            jobs.get_by_id(job["id"])
        self.assertEqual(self.status_of(gone), 404)
        other = self.new_job()
        self.assertEqual(jobs.delete_by_id(other["id"])["status"], "Success")

    def test_refusals_name_every_problem(self):
        with self.assertRaises(StatusCodeError) as refused:
            self.new_job(values={"epochs": "five", "nope": "1"}, timeout="3w")
        self.assertEqual(self.status_of(refused), 400)
        self.assertEqual({p["error"] for p in refused.exception.json()["detail"]}, {"UnknownValue", "UncoercibleValue", "InvalidTimeout"})

    def test_logs(self):
        jobs = self.client.jobs
        job = self.new_job()
        records = [
            {"severity": "INFO", "loggerName": "train", "message": "epoch 1"},
            {"severity": "ERROR", "loggerName": "train", "message": "diverged"},
            {"severity": "WARNING", "loggerName": "data", "message": "slow"},
        ]
        posted = jobs.append_logs_by_id(job["id"], records)
        self.assertEqual([r["message"] for r in posted], ["epoch 1", "diverged", "slow"])
        self.assertTrue(all("createdOn" in r for r in posted))
        self.assertEqual([r["message"] for r in jobs.get_logs_by_id(job["id"])["data"]], ["epoch 1", "diverged", "slow"])
        self.assertEqual([r["message"] for r in jobs.get_logs_by_id(job["id"], severity=["ERROR"])["data"]], ["diverged"])
        self.assertEqual(jobs.get_logs_by_id(job["id"], severity=["ERROR", "WARNING"])["totalNumResults"], 2)
        by_severity = jobs.get_logs_by_id(job["id"], sort_by="severity", descending=True)
        self.assertEqual([r["severity"] for r in by_severity["data"]], ["WARNING", "INFO", "ERROR"])
        with self.assertRaises(StatusCodeError) as bad:
            jobs.append_logs_by_id(job["id"], [{"severity": "FATAL", "loggerName": "x", "message": "m"}])
        self.assertEqual(self.status_of(bad), 400)

    def test_metrics(self):
        jobs = self.client.jobs
        job = self.new_job()
        self.assertEqual(jobs.append_metric_by_id(job["id"], "loss", float("nan"), 0)["value"], "nan")
        self.assertEqual(jobs.append_metric_by_id(job["id"], "loss", float("inf"), 1)["value"], "inf")
        measured = datetime.datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=datetime.timezone.utc)
        kept = jobs.append_metric_by_id(job["id"], "loss", 0.5, 1, timestamp=measured)
        self.assertEqual((kept["value"], kept["timestamp"]), (0.5, "2026-01-02T03:04:05.678Z"))
        jobs.append_metric_by_id(job["id"], "accuracy", -float("inf"))
        latest = {m["name"]: m for m in jobs.get_metrics_by_id(job["id"])}
        self.assertEqual((latest["loss"]["value"], latest["loss"]["step"], latest["accuracy"]["value"]), (0.5, 1, "-inf"))
        history = jobs.get_metrics_snapshots_by_id(job["id"], "loss")
        self.assertEqual([(m["step"], m["value"]) for m in history["data"]], [(0, "nan"), (1, "inf"), (1, 0.5)])
        self.assertEqual(float(history["data"][0]["value"]) != float(history["data"][0]["value"]), True)
        self.assertEqual(history["totalNumResults"], 3)
        with self.assertRaises(StatusCodeError) as bad:
            jobs.append_metric_by_id(job["id"], "top-1", 1.0)
        self.assertEqual(self.status_of(bad), 400)

    def test_mlflow_run_ids_and_artifacts(self):
        jobs, ejobs = self.client.jobs, self.client.experiments.jobs
        job, other = self.new_job(), self.new_job()
        self.assertEqual(jobs.get_mlflow_run_id(job["id"]), {"mlflowRunId": None})
        run = uuid.uuid4()
        self.assertEqual(jobs.set_mlflow_run_id(job["id"], run.hex), {"mlflowRunId": str(run)})
        self.assertEqual(ejobs.get_mlflow_run_id(self.experiment["id"], job["id"]), {"mlflowRunId": str(run)})
        with self.assertRaises(StatusCodeError) as again:
            jobs.set_mlflow_run_id(job["id"], uuid.uuid4().hex)
        self.assertEqual(self.status_of(again), 400)
        with self.assertRaises(StatusCodeError) as taken:
            ejobs.set_mlflow_run_id(self.experiment["id"], other["id"], str(run))
        self.assertEqual(self.status_of(taken), 409)
        dashed = uuid.uuid4()
        self.assertEqual(ejobs.set_mlflow_run_id(self.experiment["id"], other["id"], str(dashed)), {"mlflowRunId": str(dashed)})

        artifact = ejobs.create_artifact(self.experiment["id"], job["id"], "s3://bucket/model.pt", "weights")
        self.assertEqual((artifact["uri"], artifact["description"], artifact["job"]), ("s3://bucket/model.pt", "weights", job["id"]))
        self.assertEqual([a["id"] for a in jobs.get_by_id(job["id"])["artifacts"]], [artifact["id"]])


if __name__ == "__main__":
    unittest.main()
