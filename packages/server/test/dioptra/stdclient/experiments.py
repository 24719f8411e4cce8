"""experiments (upstream's ExperimentsCollectionClient); its jobs sub-collection lives in its own module."""

from .experiment_jobs import ExperimentJobsCollection
from .session import Collection, list_params


class ExperimentsCollection(Collection):
    name = "experiments"

    def __init__(self, session) -> None:
        super().__init__(session)
        self.jobs = ExperimentJobsCollection(session, self.url)

    def get(self, group_id=None, index=0, page_length=10, sort_by=None, descending=None, search=None):
        return self._session.get(self.url, params=list_params(index, page_length, sort_by, descending, search, group_id))

    def get_by_id(self, experiment_id):
        return self._session.get(self.url, str(experiment_id))

    def create(self, group_id, name, description=None, entrypoints=None):
        json_ = {"group": group_id, "name": name}
        if description is not None:
            json_["description"] = description
        if entrypoints is not None:
            json_["entrypoints"] = entrypoints
        return self._session.post(self.url, json_=json_)

    def modify_by_id(self, experiment_id, name, description, entrypoints):
        json_ = {"name": name}
        if description is not None:
            json_["description"] = description
        if entrypoints is not None:
            json_["entrypoints"] = entrypoints
        return self._session.put(self.url, str(experiment_id), json_=json_)

    def delete_by_id(self, experiment_id):
        return self._session.delete(self.url, str(experiment_id))
