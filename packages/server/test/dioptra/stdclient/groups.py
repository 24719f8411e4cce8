"""groups: read by integer id (upstream's GroupsCollectionClient)."""

from .session import Collection, list_params


class GroupsCollection(Collection):
    name = "groups"

    def get(self, index: int = 0, page_length: int = 10, search: str | None = None):
        return self._session.get(self.url, params=list_params(index, page_length, search=search))

    def get_by_id(self, group_id):
        return self._session.get(self.url, str(group_id))
