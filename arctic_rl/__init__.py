"""arctic-rl: contract-first SDK for serverless RL training on Cortex GS.

Public names resolve lazily (PEP 562) so that `import arctic_rl` stays cheap: torch,
the HTTP stack and the generated client load only when a client is actually used.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # not typing's: importing typing costs ~2 ms at interpreter start
if TYPE_CHECKING:
    from typing import Any

__version__ = "0.1.0"

_EXPORTS: dict[str, str] = {
    "ArcticRLClientConfig": "arctic_rl._config",
    "CortexConfig": "arctic_rl._config",
    "AsyncArcticRLClient": "arctic_rl._client",
    "ArcticRLClient": "arctic_rl._blocking",
    "create_arctic_rl_client": "arctic_rl._shim",
    "LegacyCortexClient": "arctic_rl._shim",
    "ServiceAPI": "arctic_rl._protocol",
    "CortexService": "arctic_rl._cortex",
    "ServiceOptions": "arctic_rl._options",
    "PollSettings": "arctic_rl._options",
    "ArcticRLError": "arctic_rl._errors",
    "APIConnectionError": "arctic_rl._errors",
    "AnswerTooLargeError": "arctic_rl._errors",
    "AuthenticationError": "arctic_rl._errors",
    "BackendNotAvailableError": "arctic_rl._errors",
    "BadRequestError": "arctic_rl._errors",
    "CheckpointIdentityError": "arctic_rl._errors",
    "CheckpointMismatchError": "arctic_rl._errors",
    "ChunkGroupError": "arctic_rl._errors",
    "ClientClosedError": "arctic_rl._errors",
    "ConfigError": "arctic_rl._errors",
    "ConflictError": "arctic_rl._errors",
    "InsufficientStorageError": "arctic_rl._errors",
    "InvalidRequestError": "arctic_rl._errors",
    "JobFailedError": "arctic_rl._errors",
    "JobNotRunningError": "arctic_rl._errors",
    "NotFoundError": "arctic_rl._errors",
    "NotServedError": "arctic_rl._errors",
    "OutcomeUnknownError": "arctic_rl._errors",
    "PayloadTooLargeError": "arctic_rl._errors",
    "RateLimitError": "arctic_rl._errors",
    "RedirectError": "arctic_rl._errors",
    "RequestExpiredError": "arctic_rl._errors",
    "RequestFailedError": "arctic_rl._errors",
    "RequestTimeoutError": "arctic_rl._errors",
    "ResultFrameError": "arctic_rl._errors",
    "ServerError": "arctic_rl._errors",
    "ServiceUnavailableError": "arctic_rl._errors",
    "TokenLayoutError": "arctic_rl._errors",
    "TooManyChunkGroupsError": "arctic_rl._errors",
    "UnexpectedAnswerError": "arctic_rl._errors",
    "Registries": "arctic_rl._services",
}

__all__ = ["__version__", *sorted(_EXPORTS)]

if TYPE_CHECKING:  # static tools see the real names; runtime stays lazy
    from arctic_rl._blocking import ArcticRLClient as ArcticRLClient
    from arctic_rl._client import AsyncArcticRLClient as AsyncArcticRLClient
    from arctic_rl._config import ArcticRLClientConfig as ArcticRLClientConfig
    from arctic_rl._config import CortexConfig as CortexConfig
    from arctic_rl._cortex import CortexService as CortexService
    from arctic_rl._errors import AnswerTooLargeError as AnswerTooLargeError
    from arctic_rl._errors import APIConnectionError as APIConnectionError
    from arctic_rl._errors import ArcticRLError as ArcticRLError
    from arctic_rl._errors import AuthenticationError as AuthenticationError
    from arctic_rl._errors import BackendNotAvailableError as BackendNotAvailableError
    from arctic_rl._errors import BadRequestError as BadRequestError
    from arctic_rl._errors import CheckpointIdentityError as CheckpointIdentityError
    from arctic_rl._errors import CheckpointMismatchError as CheckpointMismatchError
    from arctic_rl._errors import ChunkGroupError as ChunkGroupError
    from arctic_rl._errors import ClientClosedError as ClientClosedError
    from arctic_rl._errors import ConfigError as ConfigError
    from arctic_rl._errors import ConflictError as ConflictError
    from arctic_rl._errors import InsufficientStorageError as InsufficientStorageError
    from arctic_rl._errors import InvalidRequestError as InvalidRequestError
    from arctic_rl._errors import JobFailedError as JobFailedError
    from arctic_rl._errors import JobNotRunningError as JobNotRunningError
    from arctic_rl._errors import NotFoundError as NotFoundError
    from arctic_rl._errors import NotServedError as NotServedError
    from arctic_rl._errors import OutcomeUnknownError as OutcomeUnknownError
    from arctic_rl._errors import PayloadTooLargeError as PayloadTooLargeError
    from arctic_rl._errors import RateLimitError as RateLimitError
    from arctic_rl._errors import RedirectError as RedirectError
    from arctic_rl._errors import RequestExpiredError as RequestExpiredError
    from arctic_rl._errors import RequestFailedError as RequestFailedError
    from arctic_rl._errors import RequestTimeoutError as RequestTimeoutError
    from arctic_rl._errors import ResultFrameError as ResultFrameError
    from arctic_rl._errors import ServerError as ServerError
    from arctic_rl._errors import ServiceUnavailableError as ServiceUnavailableError
    from arctic_rl._errors import TokenLayoutError as TokenLayoutError
    from arctic_rl._errors import TooManyChunkGroupsError as TooManyChunkGroupsError
    from arctic_rl._errors import UnexpectedAnswerError as UnexpectedAnswerError
    from arctic_rl._options import PollSettings as PollSettings
    from arctic_rl._options import ServiceOptions as ServiceOptions
    from arctic_rl._protocol import ServiceAPI as ServiceAPI
    from arctic_rl._services import Registries as Registries
    from arctic_rl._shim import LegacyCortexClient as LegacyCortexClient
    from arctic_rl._shim import create_arctic_rl_client as create_arctic_rl_client


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'arctic_rl' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this hook
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
