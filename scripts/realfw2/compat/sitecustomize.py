"""realfw2 Python-3.11 compatibility patch (NOT a stub).

SkyRL@a9564572e targets Python 3.12 (.python-version): skyrl/tinker/types.py puts a
`typing.TypedDict` into a pydantic model, which pydantic refuses on Python < 3.12.
On 3.11 `typing_extensions.TypedDict` is the documented drop-in, so it is put in place
of `typing.TypedDict` for every process that has this folder on PYTHONPATH (the driver
and SkyRL's Ray task, which inherits PYTHONPATH through the entrypoint's runtime_env).
"""

import sys
import typing

if sys.version_info < (3, 12):
    import typing_extensions

    typing.TypedDict = typing_extensions.TypedDict

import os as _os

if any(
    _os.environ.get(k)
    for k in ("ARCTIC_REALFW2_TRACE", "ARCTIC_REALFW2_ENV", "REALFW2_CPU_PADDING")
):
    import realfw2_trace

    realfw2_trace.install()

# realfw2: REALFW2_ARCTIC_PLATFORM=<dir> pins which arctic-platform source this process sees
# (e.g. the Arctic-Platform@1b47608 tree): `arctic_platform*` is looked up in <dir> only, so
# the published 0.1.4 wheel in the project venv is hidden (as tests/client/standins/
# hide_published does for the project's own tests). REALFW2_ARCTIC_PLATFORM=none hides it.
# REALFW2_HIDE_MODULES=a.b,c.d additionally makes those modules unimportable (e.g. the published
# verl plugin arctic_platform.integrations.verl.register, to take the project's "plugin absent" path).
if _os.environ.get("REALFW2_ARCTIC_PLATFORM"):
    import sys as _sys
    from importlib.machinery import PathFinder as _PF

    _AP_DIR = _os.environ["REALFW2_ARCTIC_PLATFORM"]
    _HIDDEN = set(filter(None, _os.environ.get("REALFW2_HIDE_MODULES", "").split(",")))

    class _PinnedArcticPlatform(_PF):
        @classmethod
        def find_spec(cls, name, path=None, target=None):
            if name in _HIDDEN:
                return None
            if name == "arctic_platform" or name.startswith("arctic_platform."):
                if _AP_DIR == "none":
                    return None
                if name == "arctic_platform":
                    path = [_AP_DIR]
                return _PF.find_spec(name, path, target)
            return _PF.find_spec(name, path, target)

    _sys.meta_path[:] = [_PinnedArcticPlatform if f is _PF else f for f in _sys.meta_path]
