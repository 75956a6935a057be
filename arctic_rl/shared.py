"""What this repository's other packages use from the SDK: the kit, the benchmarks.

Stable names for them, so that no package reaches into the SDK's private modules; not
part of the user-facing surface (that is :mod:`arctic_rl`'s ``__all__``).
"""

from __future__ import annotations

from arctic_rl._config_check import key_lines, misplaced_variable_name
from arctic_rl._endpoint import is_loopback, proxy_for
from arctic_rl._forward_op import envelope, row_parts
from arctic_rl._layout import SKYRL
from arctic_rl._lowering import Notes, answered, lower_forward, lower_forward_backward
from arctic_rl._masking import TokenMask
from arctic_rl._requests import forward_request
from arctic_rl._timing import PHASES as TIMING_PHASES

__all__ = [
    "SKYRL",
    "TIMING_PHASES",
    "Notes",
    "TokenMask",
    "answered",
    "envelope",
    "forward_request",
    "is_loopback",
    "key_lines",
    "lower_forward",
    "lower_forward_backward",
    "misplaced_variable_name",
    "proxy_for",
    "row_parts",
]
