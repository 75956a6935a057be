"""The verl drive's probes, each a fresh interpreter as `python -m verl.trainer.main_ppo`
would be: the plugin loads and registers `cortex` on each verl and adapter, the documented
overrides compose with real Hydra, and the `cortex` backend's driver-side construction
reaches Cortex with each adapter a user can have."""

from pathlib import Path

from verl_common import (
    AP_PLUGIN,
    GROUP,
    PLUGIN,
    VERL_PIN,
    VERL_UPSTREAM,
    doc_overrides,
    env_for,
    last_error,
    main_overrides,
    py,
    record,
)

COMPOSE = """
import sys, json
import verl.trainer.main_ppo as mp
got = {}
mp.run_ppo = lambda config, task_runner_class=None: got.setdefault("cfg", config)  # stop after composition
sys.argv = ["verl.trainer.main_ppo", "hydra.run.dir=%s"] + %r
try:
    mp.main()
except SystemExit as e:
    print("SYSTEMEXIT", e.code)
cfg = got.get("cfg")
if cfg is not None:
    rb = cfg.get("remote_backend")
    print("COMPOSED", json.dumps({"trainer.remote_backend": cfg.trainer.remote_backend,
          "remote_backend keys": sorted(rb) if rb is not None else None,
          "cortex": dict(rb.cortex) if rb is not None and "cortex" in rb else None}))
"""


REGISTERED = """
import verl
from verl.remote_backend.base import RemoteBackendRegistry as R
cls = R.get("cortex")
worker = R.get_worker("cortex").__name__ if hasattr(R, "get_worker") else R.MODULES.get("cortex")
print("IMPORTED", cls.__name__, [c.__module__ for c in cls.__mro__[1:4]], worker)
"""


def probes(run: Path):
    hydra_dir = run / "hydra_probe"
    # V1: the fork-era pair: verl@61ed850f + Arctic-Platform@1b47608 (its plugin present; it
    # calls register_worker, which that verl lacks)
    rc, out, err, dt = py("import verl; print('IMPORTED', verl.__version__)", env_for(VERL_PIN))
    record(
        "V1 `import verl` with VERL_USE_EXTERNAL_MODULES="
        + PLUGIN
        + " (verl@61ed850f + Arctic-Platform@1b47608)",
        rc == 0 and "IMPORTED" in out,
        f"rc={rc} {last_error(err) if rc else out.strip()} ({dt:.0f}s)",
    )
    # V1b: the published plugin absent: `cortex` in the fork registry's lazy table
    code = (
        "import verl; from verl.remote_backend.base import RemoteBackendRegistry as R\n"
        "print('IMPORTED', R.MODULES.get('cortex'), R.list())"
    )
    rc, out, err, dt = py(code, env_for(VERL_PIN, hide=[AP_PLUGIN]))
    record(
        "V1b same, published plugin module absent: plugin loads, `cortex` in the lazy registry table",
        rc == 0 and "arctic_rl.integrations.verl.backend" in out,
        f"rc={rc} {last_error(err) if rc else out.strip()}",
    )
    # V1c-e: the merged verl with each adapter a user can have: `cortex` and its worker registered
    for tag, ap in (("V1c", "pin"), ("V1d", "main"), ("V1e", "published")):
        rc, out, err, dt = py(REGISTERED, env_for(VERL_UPSTREAM, ap=ap))
        line = next((ln for ln in out.splitlines() if ln.startswith("IMPORTED")), "")
        record(
            f"{tag} `import verl` with the plugin on the merged verl (9dfab8e5d) + Arctic-Platform {ap}: "
            "`cortex` and its worker registered",
            "IMPORTED CortexBackend" in line and line.endswith("ArcticRLActorRolloutRefWorker"),
            f"rc={rc} {line[9:300] if line else last_error(err)}",
        )
    # V2: the documented Hydra command, per verl version, with the plugin on
    for tag, verl_src in (("V2", VERL_PIN), ("V2b", VERL_UPSTREAM)):
        rc, out, err, dt = py(
            COMPOSE % (hydra_dir, doc_overrides(GROUP[verl_src])), env_for(verl_src)
        )
        comp = next((ln for ln in out.splitlines() if ln.startswith("COMPOSED")), None)
        ok = comp is not None and '"cortex": {' in comp and "myorg-myaccount" in comp
        record(
            f"{tag} the documented overrides ({GROUP[verl_src]}) compose with real Hydra on verl@{verl_src.name[5:]}",
            ok,
            comp[9:330] if comp else last_error(out + err),
        )


ADAPTER_014 = """
import sys, asyncio, json
import verl.trainer.main_ppo as mp
got = {}
mp.run_ppo = lambda config, task_runner_class=None: got.setdefault("cfg", config)
sys.argv = ["verl.trainer.main_ppo", "hydra.run.dir=%s"] + %r
mp.main()
from verl.remote_backend.base import RemoteBackendRegistry
cls = RemoteBackendRegistry.get("cortex")
base = next(c for c in cls.__mro__ if c.__name__ == "ArcticRLClientWrapper")
print("BASE", base.__module__, sys.modules[base.__module__].__file__,
      "has create_arctic_rl_client:", hasattr(sys.modules[base.__module__], "create_arctic_rl_client"))
try:
    b = cls.from_config(got["cfg"])
    print("CLIENT", type(b._client).__module__, type(b._client).__name__)
except BaseException as e:
    import traceback
    where = " <- ".join(f"{f.filename.split('site-packages/')[-1]}:{f.lineno}" for f in traceback.extract_tb(e.__traceback__)[::-1][:4])
    print("RAISED", type(e).__name__, (str(e).splitlines()[0][:200] if str(e) else ""), "| at", where)
"""


def probe_published_adapter(run: Path, url: str, token: str):
    """The `cortex` backend's driver-side construction with each adapter a user can have:
    arctic-platform 0.1.4 (`make setup`; its adapter constructs AsyncArcticRLClient itself),
    and Arctic-Platform main (arctic_platform.client's factory with an OnPremConfig)."""
    cases = (
        ("V17", VERL_PIN, "published"),
        ("V17b", VERL_UPSTREAM, "published"),
        ("V17c", VERL_UPSTREAM, "main"),
    )
    for tag, verl_src, ap in cases:
        overrides = [
            o for o in main_overrides(url, run, verl_src) if not o.startswith("hydra.run.dir")
        ]
        env = env_for(verl_src, ap=ap, extra={"ARCTIC_CORTEX_PAT": token})
        _, out, err, _ = py(ADAPTER_014 % (run / "hydra_probe", overrides), env, timeout=120)
        base = next((ln for ln in out.splitlines() if ln.startswith("BASE")), "")
        res = next(
            (ln for ln in out.splitlines() if ln.startswith(("CLIENT", "RAISED"))), last_error(err)
        )
        record(
            f"{tag} (probe) verl@{verl_src.name[5:]} + Arctic-Platform {ap}: the `cortex` backend reaches Cortex",
            "CLIENT arctic_rl._shim LegacyCortexClient" in res,
            f"{base[5:200]} -> {res[:520]}",
        )
