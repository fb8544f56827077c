"""Server reflection under both names clients ask for: grpc.reflection.v1 and v1alpha.

grpcio-reflection serves only `grpc.reflection.v1alpha.ServerReflection`; grpcurl and
newer clients ask `grpc.reflection.v1.ServerReflection` first. The two protocols have the
same messages field for field (v1 is v1alpha renamed), so the v1 method is the same
servicer behind a second method name, and v1's own reflection.proto is registered in the
descriptor pool (v1alpha's, with its package renamed) so that v1 can describe itself.
"""

from __future__ import annotations

from collections.abc import Sequence

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection
from grpc_reflection.v1alpha import reflection_pb2 as alpha_pb2
from grpc_reflection.v1alpha import reflection_pb2_grpc as alpha_grpc

V1_PACKAGE = "grpc.reflection.v1"
V1_SERVICE_NAME = f"{V1_PACKAGE}.ServerReflection"
V1_FILE = "grpc/reflection/v1/reflection.proto"
_ALPHA_PACKAGE = alpha_pb2.DESCRIPTOR.package  # grpc.reflection.v1alpha


def _register_v1_descriptor(pool: descriptor_pool.DescriptorPool) -> None:
    """Add v1's reflection.proto to the pool: v1alpha's file under v1's package."""
    try:
        pool.FindFileByName(V1_FILE)
        return
    except KeyError:
        pass
    proto = descriptor_pb2.FileDescriptorProto()
    alpha_pb2.DESCRIPTOR.CopyToProto(proto)
    proto.name, proto.package = V1_FILE, V1_PACKAGE
    old, new = f".{_ALPHA_PACKAGE}.", f".{V1_PACKAGE}."
    for message in proto.message_type:
        for field in message.field:
            if field.type_name.startswith(old):
                field.type_name = new + field.type_name[len(old) :]
    for service in proto.service:
        for method in service.method:
            method.input_type = new + method.input_type[len(old) :]
            method.output_type = new + method.output_type[len(old) :]
    proto.options.Clear()  # v1alpha's language options name v1alpha
    pool.Add(proto)


def enable_reflection(service_names: Sequence[str], server: grpc.Server) -> None:
    """Serve reflection v1alpha and v1 for `service_names` (both reflection services are
    listed too)."""
    pool = descriptor_pool.Default()
    _register_v1_descriptor(pool)
    names = (*service_names, reflection.SERVICE_NAME, V1_SERVICE_NAME)
    servicer = reflection.ReflectionServicer(names, pool=pool)
    alpha_grpc.add_ServerReflectionServicer_to_server(servicer, server)
    v1_method = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=alpha_pb2.ServerReflectionRequest.FromString,
        response_serializer=alpha_pb2.ServerReflectionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        (
            grpc.method_handlers_generic_handler(
                V1_SERVICE_NAME, {"ServerReflectionInfo": v1_method}
            ),
        )
    )
