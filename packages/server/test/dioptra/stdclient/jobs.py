"""jobs (upstream's JobsCollectionClient): lists, reads, logs, metrics, MLflow run ids of any job of the user."""

import datetime
import math

from .session import IllegalArgumentError, ResourceCollection


def metric_value(value):
    """NaN and the infinities travel as strings, as upstream's client sends them."""
    if math.isnan(value) or str(value) == "<NA>":
        return "nan"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


class JobsCollection(ResourceCollection):
    name = "jobs"

    def get_mlflow_run_id(self, job_id):
        return self._session.get(self.url, str(job_id), "mlflowRun")

    def set_mlflow_run_id(self, job_id, mlflow_run_id):
        return self._session.post(self.url, str(job_id), "mlflowRun", json_={"mlflowRunId": mlflow_run_id})

    def get_parameters(self, job_id):
        return self._session.get(self.url, str(job_id), "parameters")

    def get_artifact_parameters(self, job_id):
        return self._session.get(self.url, str(job_id), "artifactParameters")

    def get_status(self, job_id):
        return self._session.get(self.url, str(job_id), "status")

    def get_metrics_by_id(self, job_id):
        return self._session.get(self.url, str(job_id), "metrics")

    def append_metric_by_id(self, job_id, metric_name, metric_value_, metric_step=None, timestamp=None):
        json_ = {"name": metric_name, "value": metric_value(metric_value_)}
        if metric_step is not None:
            json_["step"] = metric_step
        if timestamp is not None:
            if isinstance(timestamp, datetime.datetime):
                json_["timestamp"] = timestamp.isoformat()
            else:
                try:
                    datetime.datetime.fromisoformat(timestamp)
                except ValueError as err:
                    raise IllegalArgumentError(f"Illegal type for timestamp: {timestamp}") from err
                json_["timestamp"] = timestamp
        return self._session.post(self.url, str(job_id), "metrics", json_=json_)

    def get_metrics_snapshots_by_id(self, job_id, metric_name, index=0, page_length=10):
        return self._session.get(self.url, str(job_id), "metrics", str(metric_name), "snapshots", params={"index": index, "pageLength": page_length})

    def get_logs_by_id(self, job_id, index=0, page_length=10, sort_by=None, descending=None, severity=None):
        params = {"index": index, "pageLength": page_length}
        if sort_by is not None:
            params["sortBy"] = sort_by
        if descending is not None:
            params["descending"] = descending
        if severity:
            params["severity"] = severity
        return self._session.get(self.url, str(job_id), "log", params=params)

    def append_logs_by_id(self, job_id, logs):
        return self._session.post(self.url, str(job_id), "log", json_={"data": list(logs)})
