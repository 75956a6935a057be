# generated from openapi/cortex_gs.yaml by make generate; do not edit

"""A client library for accessing Cortex GS training service"""

from .client import AuthenticatedClient, Client

__all__ = (
    "AuthenticatedClient",
    "Client",
)
