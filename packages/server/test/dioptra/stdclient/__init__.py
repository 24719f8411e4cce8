"""A standard-library stand-in for Dioptra's Python client (``dioptra.client``).

Each method sends exactly the request the upstream client's method of the same name sends: the same
method, URL, query parameters (encoded as Python's ``requests`` encodes them) and JSON body, over one
cookie-keeping session. It lets the tests check wire compatibility on machines without the upstream
package. One module per collection; add a module (and a line in ``client.py``) for another collection.
"""

from .client import connect_json_dioptra_client
from .session import StatusCodeError

__all__ = ["connect_json_dioptra_client", "StatusCodeError"]
