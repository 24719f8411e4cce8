"""auth: login and logout (upstream's AuthCollectionClient)."""

from .session import Collection


class AuthCollection(Collection):
    name = "auth"

    def login(self, username: str, password: str):
        return self._session.post(self.url, "login", json_={"username": username, "password": password})

    def logout(self, everywhere: bool = False):
        return self._session.post(self.url, "logout", params={"everywhere": everywhere})
