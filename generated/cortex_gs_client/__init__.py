# generated from openapi/cortex_gs.yaml by make generate; do not edit

"""A client library for accessing Cortex GS training service"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .client import AuthenticatedClient, Client

__all__ = (
    "AuthenticatedClient",
    "Client",
)


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import client

    return getattr(client, name)
