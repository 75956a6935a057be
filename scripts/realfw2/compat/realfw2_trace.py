"""realfw2 call tracer (observation only; changes no behaviour).

Enabled in any process whose environment has ARCTIC_REALFW2_TRACE=<file> (the ARCTIC_
prefix makes SkyRL's entrypoint forward it to its Ray task). When `arctic_rl._shim` is
imported, its factory and LegacyCortexClient's methods are wrapped so that each call the
real framework code makes appends one JSON line to <file>: pid, method, an argument
summary, a result summary, the process's open descriptors after the call (as they are,
and after a full garbage collection: SkyRL never closes the event loop it makes for each
call, and each such loop holds an epoll and a self-pipe until the collector frees it),
and (for the factory) where the token came from.
"""

import functools
import gc
import inspect
import json
import os
import sys
import time
from importlib.abc import MetaPathFinder

_TARGET = "arctic_rl._shim"
_SWITCHES = ("ARCTIC_REALFW2_TRACE", "ARCTIC_REALFW2_ENV", "REALFW2_CPU_PADDING")
_METHODS = (
    "fwd_bwd",
    "fwd_no_grad",
    "step",
    "generate",
    "sync_weights",
    "save_checkpoint",
    "load_checkpoint",
    "log_probs",
    "sleep_inference",
    "wake_inference",
    "reset_prefix_cache",
    "sleep_training",
    "wake_training",
    "empty_training_cache",
    "shutdown",
    "reconnect_config",
)


def _summ(v, depth=0):
    try:
        import torch

        if isinstance(v, torch.Tensor):
            return f"T{tuple(v.shape)}{'N' if v.is_nested else ''}"
    except Exception:
        pass
    if isinstance(v, dict) and depth < 2:
        return {str(k): _summ(x, depth + 1) for k, x in list(v.items())[:24]}
    if isinstance(v, (list, tuple)):
        return f"{type(v).__name__}[{len(v)}]"
    if isinstance(v, (int, float, str, bool, type(None))):
        return v if not isinstance(v, str) else v[:80]
    return type(v).__name__


def _open_descriptors():
    return len(os.listdir("/proc/self/fd")) - 1  # the listing's own descriptor left out


def _emit(rec):
    path = os.environ.get("ARCTIC_REALFW2_TRACE")
    if not path:
        return
    fds = _open_descriptors()
    gc.collect()
    rec = {
        "t": round(time.time(), 3),
        "pid": os.getpid(),
        "ppid": os.getppid(),
        "fds": fds,
        "fds_collected": _open_descriptors(),
        **rec,
    }
    with open(path, "a", encoding="utf-8") as fh:
        fh.write(json.dumps(rec, default=str) + "\n")


def _cfg_facts(cfg):
    facts = {"type": f"{type(cfg).__module__}.{type(cfg).__name__}"}
    try:
        dump = cfg.model_dump() if hasattr(cfg, "model_dump") else dict(cfg)
    except Exception:
        return facts
    facts["backend"] = dump.get("backend")
    facts["job_ids"] = {k: v for k, v in dump.items() if k.endswith("job_id") and v}
    cortex = dump.get("cortex") or {}
    facts["cortex_pat_env"] = cortex.get("pat_env") if isinstance(cortex, dict) else None
    flat = json.dumps(dump, default=str)
    facts["token_value_in_config"] = (
        bool(os.environ.get("ARCTIC_CORTEX_PAT")) and os.environ["ARCTIC_CORTEX_PAT"] in flat
    )
    return facts


def _patch(mod):
    factory = mod.create_arctic_rl_client

    @functools.wraps(factory)
    def traced_factory(config, server_state=None):
        client = factory(config, server_state)
        _emit(
            {
                "call": "create_arctic_rl_client",
                "config": _cfg_facts(config),
                "client": type(client).__name__,
                "job_id": getattr(client, "job_id", None),
                "env": {
                    "ARCTIC_RL_BACKEND": os.environ.get("ARCTIC_RL_BACKEND"),
                    "pat_present": bool(os.environ.get("ARCTIC_CORTEX_PAT")),
                },
                "hook_finder": any(type(f).__name__ == "_Finder" for f in sys.meta_path),
                "arctic_platform_rl": repr(sys.modules.get("arctic_platform.rl"))[:120],
            }
        )
        return client

    mod.create_arctic_rl_client = traced_factory
    cls = mod.LegacyCortexClient
    for name in _METHODS:
        orig = getattr(cls, name, None)
        if orig is None:
            continue
        if inspect.iscoroutinefunction(orig):

            async def wrapper(self, *a, __o=orig, __n=name, **k):
                r = await __o(self, *a, **k)
                _emit(
                    {
                        "call": __n,
                        "job_id": self.job_id,
                        "args": _summ(list(a)),
                        "kwargs": _summ(k),
                        "result": _summ(r),
                    }
                )
                return r
        else:

            def wrapper(self, *a, __o=orig, __n=name, **k):
                r = __o(self, *a, **k)
                _emit(
                    {
                        "call": __n,
                        "job_id": self.job_id,
                        "args": _summ(list(a)),
                        "kwargs": _summ(k),
                        "result": _summ(getattr(r, "value", r))
                        if __n != "reconnect_config"
                        else _cfg_facts(r),
                    }
                )
                return r

        setattr(cls, name, functools.wraps(orig)(wrapper))


def _register_env(mod):
    """A user environment for SkyRL's scoring (only with ARCTIC_REALFW2_ENV=1): registered
    through skyrl_gym's real registry, as a SkyRL user registers their own env."""
    mod.register(id="realfw2_bytes", entry_point="realfw2_env:AsciiShareEnv")


def _cpu_padding(mod):
    """HARNESS STUB (only with REALFW2_CPU_PADDING=1): verl.utils.attention_utils takes its
    padding helpers (unpad_input, pad_input, index_first_axis) from flash_attn.bert_padding;
    flash-attn is a CUDA package that does not install on this CPU-only machine. The same
    pure-torch helpers come from transformers.modeling_flash_attention_utils instead (the
    fallback verl's own NPU branch names). No attention kernel is involved."""
    from transformers import modeling_flash_attention_utils as hf

    def _get_attention_functions():
        def rearrange(*_a, **_k):
            raise NotImplementedError("realfw2: einops.rearrange not provided")

        return hf._index_first_axis, hf._pad_input, rearrange, hf._unpad_input

    mod._get_attention_functions = _get_attention_functions


def _targets():
    t = {_TARGET: _patch}
    if os.environ.get("REALFW2_CPU_PADDING") == "1":
        t["verl.utils.attention_utils"] = _cpu_padding
    if os.environ.get("ARCTIC_REALFW2_ENV") == "1":
        t["skyrl_gym.envs.registration"] = _register_env
    return t


class _AfterImport(MetaPathFinder):
    def find_spec(self, name, path, target=None):
        patch = _targets().get(name)
        if patch is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        orig_exec = loader.exec_module

        def exec_module(module):
            orig_exec(module)
            patch(module)

        loader.exec_module = exec_module
        return spec


def install():
    if any(os.environ.get(k) for k in _SWITCHES) and not any(
        isinstance(f, _AfterImport) for f in sys.meta_path
    ):
        sys.meta_path.insert(0, _AfterImport())
