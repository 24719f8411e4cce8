"""experiments (upstream's ExperimentsCollectionClient); its jobs sub-collection lives in experiment_jobs.py."""

from .experiment_jobs import ExperimentJobsCollection
from .session import ResourceCollection, with_optional


class ExperimentEntrypointsCollection:
    """experiments.entrypoints (upstream's ExperimentEntrypointsSubCollectionClient): /experiments/{id}/entrypoints."""

    def __init__(self, session, experiments_url) -> None:
        self._session = session
        self._experiments_url = experiments_url

    def create(self, experiment_id, entrypoint_ids):
        return self._session.post(self._session.build_url(self._experiments_url, str(experiment_id), "entrypoints"), json_={"ids": entrypoint_ids})


class ExperimentsCollection(ResourceCollection):
    name = "experiments"

    def __init__(self, session) -> None:
        super().__init__(session)
        self.jobs = ExperimentJobsCollection(session, self.url)
        self.entrypoints = ExperimentEntrypointsCollection(session, self.url)

    def create(self, group_id, name, description=None, entrypoints=None):
        json_ = {"group": group_id, "name": name}
        return self._session.post(self.url, json_=with_optional(json_, ("description", description), ("entrypoints", entrypoints)))

    def modify_by_id(self, experiment_id, name, description, entrypoints):
        json_ = with_optional({"name": name}, ("description", description), ("entrypoints", entrypoints))
        return self._session.put(self.url, str(experiment_id), json_=json_)
