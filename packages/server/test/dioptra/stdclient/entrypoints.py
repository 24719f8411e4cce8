"""entrypoints (upstream's EntrypointsCollectionClient)."""

from .session import ResourceCollection, with_optional


class EntrypointsCollection(ResourceCollection):
    name = "entrypoints"

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
