"""queues (upstream's QueuesCollectionClient)."""

from .session import ResourceCollection, with_optional


class QueuesCollection(ResourceCollection):
    name = "queues"

    def create(self, group_id: int, name: str, description: str | None = None):
        return self._session.post(self.url, json_=with_optional({"group": group_id, "name": name}, ("description", description)))

    def modify_by_id(self, queue_id, name: str, description: str | None):
        return self._session.put(self.url, str(queue_id), json_=with_optional({"name": name}, ("description", description)))
