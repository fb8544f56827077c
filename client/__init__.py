"""Typed client of the sproutsdb gRPC service."""
