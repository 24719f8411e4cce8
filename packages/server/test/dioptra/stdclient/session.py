"""The session every collection sends through: urllib with a cookie jar, as requests.Session keeps cookies."""

import http.cookiejar
import json
import posixpath
import urllib.error
import urllib.parse
import urllib.request
from typing import Any


class IllegalArgumentError(Exception):
    """An argument the client refuses before sending, as upstream's client raises it."""


class StatusCodeError(Exception):
    """A non-2xx answer, as upstream's client raises it: the status and the body's text."""

    def __init__(self, status_code: int, text: str):
        super().__init__(f"status {status_code}: {text}")
        self.status_code = status_code
        self.text = text

    def json(self) -> Any:
        return json.loads(self.text)


def _param(value: Any) -> str:
    # requests writes each query value with str(): True -> "True", 10 -> "10".
    return str(value)


class JsonSession:
    """Sends requests under the API's base URL and answers their JSON bodies as dicts."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.cookies = http.cookiejar.CookieJar()
        self._opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))
        self.sent: list[tuple[str, str, Any]] = []

    @staticmethod
    def build_url(base: str, *parts: str) -> str:
        return posixpath.join(base, *parts)

    def request(self, method: str, url: str, params: dict[str, Any] | None = None, json_: Any = None) -> Any:
        # Like upstream's session: params only when non-empty, a JSON body only when truthy.
        if params:
            # requests repeats a list's parameter once per item (`severity=ERROR&severity=INFO`).
            pairs = [(k, _param(item)) for k, v in params.items() if v is not None for item in (v if isinstance(v, list) else [v])]
            url = f"{url}?{urllib.parse.urlencode(pairs)}"
        data = None
        headers = {"Accept": "*/*"}
        if json_:
            data = json.dumps(json_).encode("utf-8")
            headers["Content-Type"] = "application/json"
        elif method in ("POST", "PUT", "PATCH"):
            data = b""
        self.sent.append((method, url, json_ if json_ else None))
        request = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with self._opener.open(request, timeout=60) as response:
                text = response.read().decode("utf-8")
        except urllib.error.HTTPError as error:
            raise StatusCodeError(error.code, error.read().decode("utf-8")) from None
        return json.loads(text) if text else None

    def get(self, endpoint: str, *parts: str, params: dict[str, Any] | None = None) -> Any:
        return self.request("GET", self.build_url(endpoint, *parts), params=params)

    def post(self, endpoint: str, *parts: str, params: dict[str, Any] | None = None, json_: Any = None) -> Any:
        return self.request("POST", self.build_url(endpoint, *parts), params=params, json_=json_)

    def put(self, endpoint: str, *parts: str, params: dict[str, Any] | None = None, json_: Any = None) -> Any:
        return self.request("PUT", self.build_url(endpoint, *parts), params=params, json_=json_)

    def delete(self, endpoint: str, *parts: str, params: dict[str, Any] | None = None, json_: Any = None) -> Any:
        return self.request("DELETE", self.build_url(endpoint, *parts), params=params, json_=json_)


class Collection:
    """A collection of the API: its name is its path under the base URL."""

    name = ""

    def __init__(self, session: JsonSession) -> None:
        self._session = session

    @property
    def url(self) -> str:
        return self._session.build_url(self._session.url, self.name)


def list_params(index: int, page_length: int, sort_by: str | None = None, descending: bool | None = None, search: str | None = None, group_id: int | None = None) -> dict[str, Any]:
    """The query a list method sends: paging always, the rest only when given (upstream's order)."""
    params: dict[str, Any] = {"index": index, "pageLength": page_length}
    if sort_by is not None:
        params["sortBy"] = sort_by
    if descending is not None:
        params["descending"] = descending
    if search is not None:
        params["search"] = search
    if group_id is not None:
        params["groupId"] = group_id
    return params


def with_optional(json_: dict[str, Any], *fields: tuple[str, Any]) -> dict[str, Any]:
    """The body with each (key, value) added when the value is not None, as upstream builds its bodies."""
    for key, value in fields:
        if value is not None:
            json_[key] = value
    return json_


class ResourceCollection(Collection):
    """A group-owned resource collection: upstream's get (paged, sorted, searched), get_by_id and delete_by_id."""

    def get(self, group_id=None, index=0, page_length=10, sort_by=None, descending=None, search=None):
        return self._session.get(self.url, params=list_params(index, page_length, sort_by, descending, search, group_id))

    def get_by_id(self, resource_id):
        return self._session.get(self.url, str(resource_id))

    def delete_by_id(self, resource_id):
        return self._session.delete(self.url, str(resource_id))
