"""connect_json_dioptra_client: the collections over one session, as upstream's DioptraClient offers them."""

import os
import posixpath

from .auth import AuthCollection
from .entrypoints import EntrypointsCollection
from .experiments import ExperimentsCollection
from .groups import GroupsCollection
from .jobs import JobsCollection
from .queues import QueuesCollection
from .session import JsonSession
from .users import UsersCollection


class DioptraClient:
    def __init__(self, session: JsonSession) -> None:
        self.session = session
        self.users = UsersCollection(session)
        self.auth = AuthCollection(session)
        self.groups = GroupsCollection(session)
        self.queues = QueuesCollection(session)
        self.entrypoints = EntrypointsCollection(session)
        self.experiments = ExperimentsCollection(session)
        self.jobs = JobsCollection(session)


def connect_json_dioptra_client(address: str | None = None) -> DioptraClient:
    """The client for a service at ``address`` (``DIOPTRA_API`` when None), without the ``/api/v1`` suffix."""
    address = address if address is not None else os.environ["DIOPTRA_API"]
    return DioptraClient(JsonSession(posixpath.join(address, "api/v1")))
