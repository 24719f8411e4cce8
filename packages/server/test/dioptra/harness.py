"""What every test module shares: a client of the service under test (DIOPTRA_API), logged in as a fresh user."""

import uuid

from stdclient import connect_json_dioptra_client

PASSWORD = "correct horse battery"

TASK_GRAPH = """\
load:
  load_dataset:
    path: $data_dir
train:
  "?training_method":
    method_a:
      train_a: {epochs: $epochs}
    method_b:
      train_b: [$epochs]
  dependencies: [load]
"""

PARAMETERS = [
    {"name": "data_dir", "defaultValue": "/data", "parameterType": "string"},
    {"name": "epochs", "defaultValue": "3", "parameterType": "integer"},
]


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def logged_in_client():
    """A new user, signed up and logged in through the client, and the id of its group."""
    client = connect_json_dioptra_client()
    username = unique("user")
    client.users.create(username, f"{username}@example.org", PASSWORD)
    client.auth.login(username, PASSWORD)
    group_id = client.users.get_current()["groups"][0]["id"]
    return client, username, group_id
