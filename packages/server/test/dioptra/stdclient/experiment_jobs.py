"""experiments.jobs (upstream's ExperimentJobsSubCollectionClient): /experiments/{id}/jobs."""

from .session import list_params, with_optional


class ExperimentJobsCollection:
    name = "jobs"

    def __init__(self, session, experiments_url) -> None:
        self._session = session
        self._experiments_url = experiments_url

    def _url(self, experiment_id):
        return self._session.build_url(self._experiments_url, str(experiment_id), self.name)

    def get(self, experiment_id, index=0, page_length=10, sort_by=None, descending=None, search=None):
        return self._session.get(self._url(experiment_id), params=list_params(index, page_length, sort_by, descending, search))

    def get_by_id(self, experiment_id, job_id):
        return self._session.get(self._url(experiment_id), str(job_id))

    # `swaps` is the documented client's (a dict of swap name -> task alias is sent as the REST list).
    def create(self, experiment_id, entrypoint_id, queue_id, entrypoint_snapshot_id=None, values=None, artifact_values=None, timeout=None, description=None, swaps=None):
        json_ = with_optional(
            {"entrypoint": entrypoint_id, "queue": queue_id},
            ("entrypointSnapshot", entrypoint_snapshot_id),
            ("values", values),
            ("artifactValues", artifact_values),
            ("timeout", timeout),
            ("description", description),
        )
        if swaps is not None:
            json_["swaps"] = [{"swap_name": k, "task_alias": v} for k, v in swaps.items()] if isinstance(swaps, dict) else swaps
        return self._session.post(self._url(experiment_id), json_=json_)

    def delete_by_id(self, experiment_id, job_id):
        return self._session.delete(self._url(experiment_id), str(job_id))

    def create_artifact(self, experiment_id, job_id, uri, description=None):
        json_ = with_optional({"uri": uri}, ("description", description))
        return self._session.post(self._url(experiment_id), str(job_id), "artifacts", json_=json_)

    def get_mlflow_run_id(self, experiment_id, job_id):
        return self._session.get(self._url(experiment_id), str(job_id), "mlflowRun")

    def set_mlflow_run_id(self, experiment_id, job_id, mlflow_run_id):
        return self._session.post(self._url(experiment_id), str(job_id), "mlflowRun", json_={"mlflowRunId": mlflow_run_id})

    def get_status(self, experiment_id, job_id):
        return self._session.get(self._url(experiment_id), str(job_id), "status")

    def set_status(self, experiment_id, job_id, status):
        return self._session.put(self._url(experiment_id), str(job_id), "status", json_={"status": status})
