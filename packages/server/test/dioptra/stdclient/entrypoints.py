"""entrypoints (upstream's EntrypointsCollectionClient)."""

from .session import ResourceCollection, with_optional


class SnapshotsSubCollection:
    """<resource>.snapshots (upstream's SnapshotsSubCollectionClient): /<resource>/{id}/snapshots."""

    name = "snapshots"

    def __init__(self, session, resource_url) -> None:
        self._session = session
        self._resource_url = resource_url

    def _url(self, resource_id):
        return self._session.build_url(self._resource_url, str(resource_id), self.name)

    def get(self, resource_id, index=0, page_length=10, search=None):
        params = {"index": index, "pageLength": page_length}
        if search is not None:
            params["search"] = search
        return self._session.get(self._url(resource_id), params=params)

    def get_by_id(self, resource_id, snapshot_id):
        return self._session.get(self._url(resource_id), str(snapshot_id))


class EntrypointsCollection(ResourceCollection):
    name = "entrypoints"

    def __init__(self, session) -> None:
        super().__init__(session)
        self.snapshots = SnapshotsSubCollection(session, self.url)

    def create(self, group_id, name, task_graph, artifact_graph=None, description=None, parameters=None, artifact_parameters=None, queues=None, plugins=None, artifact_plugins=None):
        json_ = {"group": group_id, "name": name, "taskGraph": task_graph}
        optional = self._fields(artifact_graph, description, parameters, artifact_parameters, queues)
        return self._session.post(self.url, json_=with_optional(json_, *optional, ("plugins", plugins), ("artifactPlugins", artifact_plugins)))

    def modify_by_id(self, entrypoint_id, name, task_graph, artifact_graph, description, parameters, artifact_parameters, queues):
        json_ = {"name": name, "taskGraph": task_graph}
        optional = self._fields(artifact_graph, description, parameters, artifact_parameters, queues)
        return self._session.put(self.url, str(entrypoint_id), json_=with_optional(json_, *optional))

    @staticmethod
    def _fields(artifact_graph, description, parameters, artifact_parameters, queues):
        return (
            ("artifactGraph", artifact_graph),
            ("description", description),
            ("parameters", parameters),
            ("artifactParameters", artifact_parameters),
            ("queues", queues),
        )
