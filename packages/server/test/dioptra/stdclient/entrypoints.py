"""entrypoints (upstream's EntrypointsCollectionClient)."""

from .session import Collection, list_params


class EntrypointsCollection(Collection):
    name = "entrypoints"

    def get(self, group_id=None, index=0, page_length=10, sort_by=None, descending=None, search=None):
        return self._session.get(self.url, params=list_params(index, page_length, sort_by, descending, search, group_id))

    def get_by_id(self, entrypoint_id):
        return self._session.get(self.url, str(entrypoint_id))

    def create(self, group_id, name, task_graph, artifact_graph=None, description=None, parameters=None, artifact_parameters=None, queues=None, plugins=None, artifact_plugins=None):
        json_ = {"group": group_id, "name": name, "taskGraph": task_graph}
        for key, value in (
            ("artifactGraph", artifact_graph),
            ("description", description),
            ("parameters", parameters),
            ("artifactParameters", artifact_parameters),
            ("queues", queues),
            ("plugins", plugins),
            ("artifactPlugins", artifact_plugins),
        ):
            if value is not None:
                json_[key] = value
        return self._session.post(self.url, json_=json_)

    def modify_by_id(self, entrypoint_id, name, task_graph, artifact_graph, description, parameters, artifact_parameters, queues):
        json_ = {"name": name, "taskGraph": task_graph}
        for key, value in (
            ("artifactGraph", artifact_graph),
            ("description", description),
            ("parameters", parameters),
            ("artifactParameters", artifact_parameters),
            ("queues", queues),
        ):
            if value is not None:
                json_[key] = value
        return self._session.put(self.url, str(entrypoint_id), json_=json_)

    def delete_by_id(self, entrypoint_id):
        return self._session.delete(self.url, str(entrypoint_id))
