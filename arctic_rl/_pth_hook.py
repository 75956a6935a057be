"""`arctic_platform.rl`, where SkyRL and verl import their client factory, answered here.

Both frameworks do `from arctic_platform.rl import ArcticRLClientConfig,
create_arctic_rl_client` and nothing else reaches a factory. Once Cortex is selected,
`install()` puts a finder first on `sys.meta_path` that answers that name:

- beside the published arctic-platform (its rl extras installed): its module loads as
  usual, then its `create_arctic_rl_client` becomes this package's factory, which serves
  Cortex configs and hands every other config to the published factory unchanged;
- without it, or when its rl extras are missing (it raises ImportError on import): the
  module is a stand-in holding this package's config class and factory, plus
  `ray_server.ArcticRLRayServerState` (a placeholder: Cortex runs no Ray server).

Selected, it also completes framework modules with a known gap on the Cortex path right
after they load (`_COMPLETIONS`: SkyRL's Arctic dispatch lacks `finalize_pending_saves`).

Selected means `ARCTIC_RL_BACKEND=cortex` (or `ARCTIC_BACKEND=cortex`, the name
Arctic-Platform's own Cortex client reads) in the environment, read at interpreter start
by the one-line `arctic_rl-import-hook.pth` (so fresh processes such as SkyRL's Ray task get
it), or an integration of this package calling `install()` in its own process. With
nothing selected nothing is installed and nothing is imported: the line only reads the
variable. Standard library only, so the `.pth` may import it.

A wheel ships the `.pth` into site-packages; an editable install (`make setup`) cannot,
so `python -m arctic_rl._pth_hook` writes it there.
"""

from __future__ import annotations

import importlib
import os
import sys
from importlib.machinery import ModuleSpec

# Kept out of interpreter start (typing ~2 ms, importlib.abc ~10 ms); type checkers
# treat a name TYPE_CHECKING as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import types
    from collections.abc import Sequence
    from importlib.abc import Loader
    from typing import Any

__all__ = ["ArcticRLRayServerState", "create_arctic_rl_client", "install", "rebind", "selected"]

PLATFORM = "arctic_platform"
PLATFORM_RL = "arctic_platform.rl"
RAY_SERVER = "arctic_platform.rl.ray_server"
SELECT_ENV = "ARCTIC_RL_BACKEND"
SELECT_ENVS = (SELECT_ENV, "ARCTIC_BACKEND")  # either one, set to cortex, selects it
_STAND_IN = "__arctic_rl_stand_in__"  # marks modules this hook made
PTH_NAME = "arctic_rl-import-hook.pth"
# Reads one variable; only when it selects Cortex does it look further (and a line left
# behind by an uninstalled package stays silent: find_spec finds nothing).
PTH_LINE = (
    'import os; "cortex" in (os.environ.get("ARCTIC_RL_BACKEND", "").strip().lower(), '
    'os.environ.get("ARCTIC_BACKEND", "").strip().lower()) '
    'and __import__("importlib.util").util.find_spec("arctic_rl") is not None '
    'and __import__("arctic_rl._pth_hook", fromlist=["install"]).install()\n'
)
# Framework modules with a known gap on the Cortex path, each completed right after it
# loads by the named function of this package (module -> "module:function").
_COMPLETIONS = {
    "integrations.arctic_rl.trainer": "arctic_rl.integrations.skyrl:complete_dispatch",
}
_LAZY_NAMES = {
    "ArcticRLClientConfig": "arctic_rl._config",
    "create_arctic_rl_client": "arctic_rl._shim",
}


def selected() -> bool:
    """Whether `ARCTIC_RL_BACKEND=cortex` or `ARCTIC_BACKEND=cortex` is exported (any other
    value selects nothing)."""
    return any(os.environ.get(n, "").strip().lower() == "cortex" for n in SELECT_ENVS)


def create_arctic_rl_client(config: Any, server_state: Any = None) -> Any:
    """This package's factory, bound where the published one was (loads it on first call)."""
    from arctic_rl._shim import create_arctic_rl_client as factory

    return factory(config, server_state)


class ArcticRLRayServerState:
    """Stands for the on-prem Ray server state the verl adapter imports; Cortex has none."""


def install() -> None:
    """Answer `arctic_platform.rl` from this package in this process (idempotent)."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
    loaded = sys.modules.get(PLATFORM_RL)
    if loaded is not None and not getattr(loaded, _STAND_IN, False):
        _bind_factory(loaded)
    for name in _COMPLETIONS:
        if name in sys.modules:
            _complete(sys.modules[name])


def rebind(module_name: str) -> None:
    """For a module that imported the factory by name before `install()`: point it here."""
    module = sys.modules.get(module_name)
    if module is not None and hasattr(module, "create_arctic_rl_client"):
        _bind_factory(module)


def _bind_factory(module: types.ModuleType) -> None:
    module.create_arctic_rl_client = create_arctic_rl_client  # type: ignore[attr-defined]


def _fill_stand_in(module: types.ModuleType, kind: str) -> None:
    setattr(module, _STAND_IN, True)
    if kind == RAY_SERVER:
        module.ArcticRLRayServerState = ArcticRLRayServerState  # type: ignore[attr-defined]
        return
    if kind == PLATFORM_RL:
        module.__all__ = sorted(_LAZY_NAMES)  # type: ignore[attr-defined]
        module.__getattr__ = _lazy_attribute  # type: ignore[attr-defined]
        module.__doc__ = "arctic-rl's stand-in for arctic_platform.rl (Cortex only)."


def _lazy_attribute(name: str) -> Any:
    """PEP 562 hook of the stand-in: the config class and factory load on first use."""
    source = _LAZY_NAMES.get(name)
    if source is None:
        raise AttributeError(f"module {PLATFORM_RL!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(source), name)
    setattr(sys.modules[PLATFORM_RL], name, value)
    return value


class _StandInLoader:
    """Makes an empty module (a package where submodules may follow) and fills it."""

    def __init__(self, kind: str) -> None:
        self.kind = kind

    def create_module(self, spec: ModuleSpec) -> None:
        return None  # the default module object

    def exec_module(self, module: types.ModuleType) -> None:
        _fill_stand_in(module, self.kind)


class _WrappingLoader:
    """Creates the module with the real loader; subclasses run it their way."""

    def __init__(self, real: Loader) -> None:
        self.real = real

    def create_module(self, spec: ModuleSpec) -> types.ModuleType | None:
        return self.real.create_module(spec)


class _PublishedLoader(_WrappingLoader):
    """Runs the published `arctic_platform.rl`; binds this factory, or stands in if it fails."""

    def exec_module(self, module: types.ModuleType) -> None:
        try:
            self.real.exec_module(module)
        except ImportError as exc:  # its rl extras (deepspeed, ray, ...) are not installed
            import logging

            logging.getLogger("arctic_rl").debug(
                "arctic_rl: published arctic_platform.rl unusable (%s); standing in", exc
            )
            module.__dict__.pop("__getattr__", None)
            _fill_stand_in(module, PLATFORM_RL)
            return
        _bind_factory(module)


def _complete(module: types.ModuleType) -> None:
    source, _, function = _COMPLETIONS[module.__name__].partition(":")
    getattr(importlib.import_module(source), function)(module)


class _CompletingLoader(_WrappingLoader):
    """Runs a framework module's own loader, then completes it (see `_COMPLETIONS`)."""

    def exec_module(self, module: types.ModuleType) -> None:
        self.real.exec_module(module)
        _complete(module)


class _Finder:
    """Answers `arctic_platform`, `arctic_platform.rl` and its `ray_server`; wraps the
    loaders of the modules in `_COMPLETIONS`."""

    def find_spec(
        self, name: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> ModuleSpec | None:
        if name in _COMPLETIONS:
            found = _real_spec(self, name, path, target)
            if found is not None and found.loader is not None:
                found.loader = _CompletingLoader(found.loader)
            return found
        if name not in (PLATFORM, PLATFORM_RL, RAY_SERVER):
            return None
        if name == RAY_SERVER:
            parent = sys.modules.get(PLATFORM_RL)
            if not getattr(parent, _STAND_IN, False):
                return None  # the published package's own module
            return _stand_in_spec(name, is_package=False)
        real = _real_spec(self, name, path, target)
        if name == PLATFORM:
            return real or _stand_in_spec(name, is_package=True)
        if real is None or real.loader is None:
            return _stand_in_spec(name, is_package=True)
        real.loader = _PublishedLoader(real.loader)
        return real


def _stand_in_spec(name: str, *, is_package: bool) -> ModuleSpec:
    spec = ModuleSpec(name, _StandInLoader(name), is_package=is_package)
    if is_package:
        spec.submodule_search_locations = []
    return spec


def _real_spec(
    hook: _Finder, name: str, path: Sequence[str] | None, target: types.ModuleType | None
) -> ModuleSpec | None:
    """What the other finders would answer (the published package, if installed)."""
    for finder in sys.meta_path:
        if finder is hook or isinstance(finder, _Finder):
            continue
        find = getattr(finder, "find_spec", None)
        spec = find(name, path, target) if find is not None else None
        if spec is not None:
            return spec
    return None


def write_pth(site_dir: str | None = None) -> str:
    """Put the `.pth` line into site-packages (an editable install cannot ship it)."""
    import sysconfig

    path = os.path.join(site_dir or sysconfig.get_paths()["purelib"], PTH_NAME)
    with open(path, "w", encoding="utf-8") as out:
        out.write(PTH_LINE)
    return path


if __name__ == "__main__":
    print(f"wrote {write_pth()}")
