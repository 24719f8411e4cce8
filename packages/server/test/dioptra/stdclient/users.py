"""users: sign-up and the current user (upstream's UsersCollectionClient)."""

from .session import Collection, list_params


class UsersCollection(Collection):
    name = "users"

    def get(self, index: int = 0, page_length: int = 10, search: str | None = None):
        return self._session.get(self.url, params=list_params(index, page_length, search=search))

    def create(self, username: str, email: str, password: str):
        return self._session.post(self.url, json_={"username": username, "email": email, "password": password, "confirmPassword": password})

    def get_by_id(self, user_id):
        return self._session.get(self.url, str(user_id))

    def get_current(self):
        return self._session.get(self.url, "current")
