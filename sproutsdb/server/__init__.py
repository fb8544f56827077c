"""Persistence (LMDB proof store) and the gRPC service."""
