"""queues (upstream's QueuesCollectionClient)."""

from .session import Collection, list_params


class QueuesCollection(Collection):
    name = "queues"

    def get(self, group_id=None, index=0, page_length=10, sort_by=None, descending=None, search=None):
        return self._session.get(self.url, params=list_params(index, page_length, sort_by, descending, search, group_id))

    def get_by_id(self, queue_id):
        return self._session.get(self.url, str(queue_id))

    def create(self, group_id: int, name: str, description: str | None = None):
        json_ = {"group": group_id, "name": name}
        if description is not None:
            json_["description"] = description
        return self._session.post(self.url, json_=json_)

    def modify_by_id(self, queue_id, name: str, description: str | None):
        json_ = {"name": name}
        if description is not None:
            json_["description"] = description
        return self._session.put(self.url, str(queue_id), json_=json_)

    def delete_by_id(self, queue_id):
        return self._session.delete(self.url, str(queue_id))
