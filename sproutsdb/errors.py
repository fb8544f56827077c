"""The base of every error a user can cause and fix (bad input, wrong store, conflicts).

The CLI prints these as one line with exit code 2 and the service maps them to gRPC
statuses; any other exception is a bug and keeps its traceback.
"""


class UserError(Exception):
    """An error caused by what the user supplied; its message is the whole explanation."""


class UsageError(UserError):
    """A mistake in what the user asked for; printed as one line, exit code 2."""


class WireError(UserError):
    """A message that does not say something meaningful (unknown enum, bad token, columns of
    unequal length); here, not in sproutsdb.wire, so that code which only catches it never
    imports grpc."""
