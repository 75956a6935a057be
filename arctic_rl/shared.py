"""What this repository's other packages use from the SDK: the kit, the benchmarks.

Stable names for them, so that no package reaches into the SDK's private modules; not
part of the user-facing surface (that is :mod:`arctic_rl`'s ``__all__``).
"""

from __future__ import annotations

from arctic_rl._config_check import key_lines, misplaced_variable_name
from arctic_rl._endpoint import is_loopback, proxy_for
from arctic_rl._masking import TokenMask
from arctic_rl._requests import forward_request
from arctic_rl._timing import PHASES as TIMING_PHASES

__all__ = [
    "TIMING_PHASES",
    "TokenMask",
    "forward_request",
    "is_loopback",
    "key_lines",
    "misplaced_variable_name",
    "proxy_for",
]
