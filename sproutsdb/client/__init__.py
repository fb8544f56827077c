"""Typed client of the sproutsdb gRPC service.

`Client(address, token=None)` has the batch methods (lookup/get, insert, insert_stream,
get_rcts, rct_table, children, export, stats, server_info, health), deadlines and retries
on UNAVAILABLE; `RemoteProofStore` is the solver's ProofStore port over it.
"""

from sproutsdb.client.client import (
    AccessDeniedError,
    Client,
    InsertResult,
    InvalidRequestError,
    LookupResult,
    ServerUnavailableError,
    ServiceError,
)
from sproutsdb.client.remote import RemoteProofStore

__all__ = [
    "AccessDeniedError",
    "Client",
    "InsertResult",
    "InvalidRequestError",
    "LookupResult",
    "RemoteProofStore",
    "ServerUnavailableError",
    "ServiceError",
]
