"""Reflection v1 and v1alpha and health checking, as stock clients use them, against a
real `sproutsdb serve` process (grpcurl asks v1 first; grpc's Python client speaks v1alpha)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2 as alpha_pb2
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from service_support import ServerProcess
from sproutsdb.wire import SERVICE_NAME

V1_METHOD = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    base: Path = tmp_path_factory.mktemp("reflection")
    with ServerProcess(base / "store", "--no-seed") as proc:
        yield proc


@pytest.fixture()
def channel(server: ServerProcess) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(server.address) as chan:
        yield chan


def test_v1alpha_through_grpcs_own_reflection_client(channel: grpc.Channel) -> None:
    database = ProtoReflectionDescriptorDatabase(channel)
    services = set(database.get_services())
    assert {
        SERVICE_NAME,
        "grpc.health.v1.Health",
        "grpc.reflection.v1alpha.ServerReflection",
        "grpc.reflection.v1.ServerReflection",
    } <= services
    pool = descriptor_pool.DescriptorPool(database)
    service = pool.FindServiceByName(SERVICE_NAME)
    methods = {m.name for m in service.methods}
    assert {"Lookup", "Insert", "Children", "Stats", "ServerInfo"} <= methods
    lookup = pool.FindMessageTypeByName(service.methods_by_name["Lookup"].input_type.full_name)
    assert "keys" in lookup.fields_by_name


def _v1(
    channel: grpc.Channel, *requests: alpha_pb2.ServerReflectionRequest
) -> list[alpha_pb2.ServerReflectionResponse]:
    """A v1 call: its messages are v1alpha's field for field, under v1's method name."""
    call = channel.stream_stream(
        V1_METHOD,
        request_serializer=alpha_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=alpha_pb2.ServerReflectionResponse.FromString,
    )
    return list(call(iter(requests), timeout=10))


def test_v1_lists_and_describes_services(channel: grpc.Channel) -> None:
    (listed,) = _v1(channel, alpha_pb2.ServerReflectionRequest(list_services=""))
    names = {s.name for s in listed.list_services_response.service}
    assert {SERVICE_NAME, "grpc.reflection.v1.ServerReflection"} <= names
    for symbol, package in [
        (SERVICE_NAME, "sproutsdb.v1"),
        ("grpc.reflection.v1.ServerReflection", "grpc.reflection.v1"),
    ]:
        (reply,) = _v1(channel, alpha_pb2.ServerReflectionRequest(file_containing_symbol=symbol))
        assert reply.WhichOneof("message_response") == "file_descriptor_response", reply
        files = [
            descriptor_pb2.FileDescriptorProto.FromString(raw)
            for raw in reply.file_descriptor_response.file_descriptor_proto
        ]
        assert package in {f.package for f in files}
    (missing,) = _v1(
        channel, alpha_pb2.ServerReflectionRequest(file_containing_symbol="no.such.Service")
    )
    assert missing.error_response.error_code == grpc.StatusCode.NOT_FOUND.value[0]


def test_health_checking(channel: grpc.Channel) -> None:
    stub = health_pb2_grpc.HealthStub(channel)
    for service in ("", SERVICE_NAME):
        reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=10)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
    with pytest.raises(grpc.RpcError) as caught:
        stub.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=10)
    assert caught.value.code() == grpc.StatusCode.NOT_FOUND
    watch = stub.Watch(health_pb2.HealthCheckRequest(service=SERVICE_NAME), timeout=10)
    assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
    watch.cancel()
