"""SkyRL entrypoint: SkyRL's own Arctic flow, served from Cortex, selected from the recipe.

One entry selects it: `trainer.override_entrypoint=arctic_rl.integrations.skyrl`.
SkyRL's `main_base` imports this module and calls `main()`, which

1. takes its own entries off the command line before SkyRL's strict config parse sees
   them: `arctic_rl.cortex_file=PATH` (the small cortex yaml) and
   `arctic_rl.cortex.<key>=<value>` (one setting, beating the file);
2. loads the Cortex settings: those entries, else the file named by
   `ARCTIC_RL_CORTEX_FILE`; `ARCTIC_CORTEX_*` variables fill what is still unset;
3. answers `arctic_platform.rl` from this package in this process and exports
   `ARCTIC_RL_BACKEND=cortex`, which SkyRL forwards (with every `ARCTIC_*` variable) to
   its Ray task, a fresh process where the `.pth` line installs the same import hook;
4. runs SkyRL's `integrations.arctic_rl.entrypoint.main()` unchanged: its driver builds
   the client once (backend "local" becomes Cortex), and its Ray task reconnects with
   the pickled `reconnect_config()`, which carries every Cortex setting but the token.

SkyRL sends its `fwd_no_grad` answer back as `old_log_probs`, in the answer's roll layout;
the clients built on this path (and their reconnect copies) read every `[B, T]` log-prob
input that way and send it token-aligned, as the contract asks (docs/layout.md).

Resume (`trainer.resume_mode=latest`, SkyRL's default) works with no change to SkyRL:
its Arctic dispatch saves on the service without the folder SkyRL gives it and its
`load_checkpoint` only logs, so wherever the import hook is installed `complete_dispatch`
replaces both. The save takes a resumable Cortex checkpoint and records its identity in
`global_step_N/policy/` (docs/reliability.md, "Resume"); the load restores it into the
run's job (from the interrupted run's job, which it names) and checks the step, or fails
when the folder records none. SkyRL's retention (`trainer.max_ckpts_to_keep`) deletes the
service checkpoints of the folders it removes. Its trainer also ends `train()` with
`dispatch.finalize_pending_saves(model)`, which the dispatch does not define: supplied as
a no-op (Cortex saves before the call returns), unless that SkyRL defines it.

The token is read from the variable `pat_env` names; it must start with `ARCTIC_` for
SkyRL to forward it to the Ray task.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import importlib
import importlib.util
import logging
import os
import sys
from collections.abc import Callable, Coroutine, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

import yaml

from arctic_rl import _pth_hook
from arctic_rl._config import CORTEX_FILE_ENV, SELECT_ENV, CortexConfig
from arctic_rl._errors import ConfigError
from arctic_rl._layout import SKYRL
from arctic_rl._resume import IDENTITY_FILE, delete_identity, read_identity
from arctic_rl._shim import route_on_prem_to_cortex
from arctic_rl._sources import resolve_config

__all__ = [
    "FILE_ARG",
    "SETTING_ARG",
    "SKYRL_ENTRYPOINT",
    "complete_dispatch",
    "cortex_settings",
    "main",
    "use_cortex",
]

log = logging.getLogger("arctic_rl")
T = TypeVar("T")

SKYRL_ENTRYPOINT = "integrations.arctic_rl.entrypoint"
# The SkyRL commit this package's SkyRL path was proven on (docs/skyrl.md).
SKYRL_PROVEN_COMMIT = "a9564572e"
FILE_ARG = "arctic_rl.cortex_file="
SETTING_ARG = "arctic_rl.cortex."
GLOBAL_STEP_PREFIX = "global_step_"  # SkyRL's checkpoint folders
FORWARDED_PREFIX = "ARCTIC_"  # what SkyRL's entrypoint forwards to its Ray task
# SkyRL's strict config rejects these; say where the setting goes instead.
_REJECTED_BY_SKYRL = ("trainer.arctic_rl.cortex", "trainer.arctic_rl.backend")


def cortex_settings(argv: Sequence[str], environ: dict[str, str] | None = None) -> CortexConfig:
    """The Cortex settings named by these command-line entries (see the module doc)."""
    env = os.environ if environ is None else environ
    rejected = [a for a in argv if a.startswith(_REJECTED_BY_SKYRL)]
    if rejected:
        raise ConfigError(
            f"SkyRL's config has no place for {rejected[0].split('=', 1)[0]}: the entrypoint "
            f"itself selects Cortex; put settings in {FILE_ARG}PATH or {SETTING_ARG}<key>=<value>"
        )
    path = next((a.removeprefix(FILE_ARG) for a in argv if a.startswith(FILE_ARG)), None)
    path = path or env.get(CORTEX_FILE_ENV)
    base = CortexConfig.from_file(path).model_dump(exclude_unset=True) if path else {}
    for entry in argv:
        if entry.startswith(SETTING_ARG):
            key, sep, raw = entry.removeprefix(SETTING_ARG).partition("=")
            if not sep or not key:
                raise ConfigError(f"expected {SETTING_ARG}<key>=<value>, got {entry!r}")
            base[key] = yaml.safe_load(raw)
    return CortexConfig.checked(base, SETTING_ARG.rstrip("."))


def _no_pending_saves(self: Any, model: str | None = None) -> None:
    """Cortex saves a checkpoint before the save call returns: nothing is left to drain."""


def _blocking(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a client call from SkyRL's synchronous dispatch, which its trainer calls inside
    its own running loop: on a fresh loop in a worker thread, as SkyRL's helper does."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def _global_step_of(folder: str) -> int | None:
    """SkyRL's step from its folder layout (`<ckpt_path>/global_step_N/policy`)."""
    name = Path(folder).parent.name
    if name.startswith(GLOBAL_STEP_PREFIX) and name[len(GLOBAL_STEP_PREFIX) :].isdigit():
        return int(name[len(GLOBAL_STEP_PREFIX) :])
    return None


def _save_checkpoint(self: Any, model: str, ckpt_dir: str, tokenizer: Any = None) -> None:
    """A resumable Cortex checkpoint, recorded in the folder SkyRL saves its own state in."""
    _blocking(self.client.save_checkpoint(ckpt_dir, global_step=_global_step_of(ckpt_dir)))


def _load_checkpoint(
    self: Any, model: str, ckpt_dir: str, load_optimizer_states: bool = True, **_: Any
) -> None:
    """Restore the Cortex checkpoint the folder records (an error when it records none)."""
    _blocking(self.client.load_checkpoint(ckpt_dir, load_optimizer_states=load_optimizer_states))


def _with_service_retention(cleanup: Callable[[Any], None]) -> Callable[[Any], None]:
    """SkyRL's `_cleanup_old_checkpoints`, then the service checkpoints of the folders it
    removed deleted too (unless a folder it kept records the same one)."""

    @functools.wraps(cleanup)
    def cleanup_old_checkpoints(self: Any) -> None:
        root = Path(self.cfg.trainer.ckpt_path)
        before = {
            path.parent: read_identity(path.parent)
            for path in root.glob(f"{GLOBAL_STEP_PREFIX}*/*/{IDENTITY_FILE}")
        }
        cleanup(self)
        kept = {(i.job_id, i.checkpoint_id) for f, i in before.items() if f.exists()}
        client = self.dispatch.client.client.aio
        for folder, identity in before.items():
            if not folder.exists() and (identity.job_id, identity.checkpoint_id) not in kept:
                _blocking(delete_identity(client, identity))

    cleanup_old_checkpoints.__arctic_rl_retention__ = True  # type: ignore[attr-defined]
    return cleanup_old_checkpoints


def complete_dispatch(trainer_module: ModuleType) -> None:
    """Complete SkyRL's Arctic trainer for Cortex (see the module doc): the dispatch's save
    and load go through the folder SkyRL gives them, its retention deletes the service
    checkpoints too, and `finalize_pending_saves` exists."""
    dispatch = getattr(trainer_module, "_ArcticDispatch", None)
    if dispatch is None:
        return
    dispatch.save_checkpoint = _save_checkpoint
    dispatch.load_checkpoint = _load_checkpoint
    if not hasattr(dispatch, "finalize_pending_saves"):
        dispatch.finalize_pending_saves = _no_pending_saves
        log.info(
            "arctic_rl: SkyRL's Arctic dispatch has no finalize_pending_saves, which its "
            "trainer calls after training; supplied as a no-op (Cortex leaves no save pending)"
        )
    trainer = getattr(trainer_module, "ArcticPPOTrainer", None)
    cleanup = getattr(trainer, "_cleanup_old_checkpoints", None)
    if cleanup is not None and not getattr(cleanup, "__arctic_rl_retention__", False):
        trainer._cleanup_old_checkpoints = _with_service_retention(cleanup)  # type: ignore[union-attr]
    log.info(
        "arctic_rl: SkyRL's Arctic dispatch saves and resumes through Cortex checkpoints "
        "recorded in SkyRL's checkpoint folders (trainer.resume_mode=latest works)"
    )


def _own(entry: str) -> bool:
    return entry.startswith((FILE_ARG, SETTING_ARG))


def _checked(settings: CortexConfig, environ: dict[str, str]) -> CortexConfig:
    """Fail on the driver, before any job exists, on what would fail in the Ray task."""
    from arctic_rl._config import ArcticRLClientConfig

    probe = ArcticRLClientConfig(model_name="-", backend="cortex", cortex=settings)
    resolved, _ = resolve_config(probe, environ)
    resolved.cortex.url()
    resolved.cortex.read_token(environ)
    if not resolved.cortex.pat_env.startswith(FORWARDED_PREFIX):
        raise ConfigError(
            f"cortex.pat_env is {resolved.cortex.pat_env!r}: SkyRL forwards only ARCTIC_* "
            f"variables to its Ray task, so name one that starts with ARCTIC_"
        )
    return settings


def use_cortex(settings: CortexConfig) -> None:
    """In this process: answer `arctic_platform.rl` from this package and serve the
    frameworks' backend="local" configs from Cortex with these settings, reading each
    `[B, T]` log-prob input in SkyRL's (roll) layout, whatever tensor carries it."""
    _pth_hook.install()
    route_on_prem_to_cortex(settings, layout=SKYRL.name)


def main() -> Any:
    """SkyRL's Arctic flow on Cortex (called by SkyRL's main_base)."""
    argv = sys.argv[1:]
    settings = _checked(cortex_settings(argv), dict(os.environ))
    sys.argv[1:] = [a for a in argv if not _own(a)]
    # Reaches the Ray task: its .pth line installs the import hook.
    os.environ[SELECT_ENV] = "cortex"
    use_cortex(settings)
    try:
        entrypoint = importlib.import_module(SKYRL_ENTRYPOINT)
    except ModuleNotFoundError as exc:
        if not SKYRL_ENTRYPOINT.startswith(exc.name or "?"):
            raise
        raise _no_arctic_flow() from None
    return entrypoint.main()


def _no_arctic_flow() -> ConfigError:
    """Why SkyRL's Arctic flow cannot be imported: a packaged SkyRL lacks it (it lives in a
    source checkout, beside the ``skyrl`` package), or there is no SkyRL at all."""
    checkout = (
        "run SkyRL's trainer from the root of a SkyRL source checkout (git clone; proven on "
        f"commit {SKYRL_PROVEN_COMMIT}), where integrations/arctic_rl lives"
    )
    if importlib.util.find_spec("skyrl") is not None:
        return ConfigError(
            f"this SkyRL is an installed package without {SKYRL_ENTRYPOINT} (the released "
            f"skyrl packages do not ship integrations/arctic_rl): {checkout}"
        )
    return ConfigError(
        f"SkyRL is not installed here ({SKYRL_ENTRYPOINT} is missing): {checkout}, with "
        "trainer.override_entrypoint=arctic_rl.integrations.skyrl"
    )


USAGE = """\
arctic_rl.integrations.skyrl is SkyRL's entrypoint on Cortex, not a command of its own.
Run SkyRL's trainer with it:

    python -m skyrl.train.entrypoints.main_base \\
        trainer.override_entrypoint=arctic_rl.integrations.skyrl \\
        arctic_rl.cortex_file=cortex.yaml [arctic_rl.cortex.<key>=<value> ...] [SkyRL's own entries]
"""

if __name__ == "__main__":
    sys.stderr.write(USAGE)
    sys.exit(2)
