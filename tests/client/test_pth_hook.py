"""The `arctic_platform.rl` hook (`_pth_hook`), each case in a fresh interpreter, as SkyRL's
Ray task is.

Unselected, the interpreter is untouched: no finder, nothing of arctic_rl imported, the
published package's own ImportError. Selected (ARCTIC_RL_BACKEND=cortex), the name
answers with this package's factory, beside the published package and without it; a
published `arctic_platform.rl` that imports keeps serving on-prem configs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

from arctic_rl import _pth_hook

ROOT = Path(__file__).resolve().parents[2]
HIDE_PUBLISHED = Path(__file__).parent / "standins" / "hide_published"

PROBE = textwrap.dedent(
    """
    import json, sys
    out = {"finder": any(type(f).__name__ == "_Finder" for f in sys.meta_path),
           "arctic_rl_loaded": "arctic_rl" in sys.modules}
    try:
        from arctic_platform.rl import ArcticRLClientConfig, create_arctic_rl_client
        from arctic_platform.rl.ray_server import ArcticRLRayServerState
    except ImportError as exc:
        out["error"] = str(exc)
    else:
        import arctic_platform
        out["config"] = ArcticRLClientConfig.__module__
        out["factory"] = create_arctic_rl_client.__module__
        out["state"] = ArcticRLRayServerState.__module__
        out["platform_file"] = getattr(arctic_platform, "__file__", None)
    print(json.dumps(out))
    """
)


def _probe(*, select: str | None, paths: list[Path] = (), code: str = PROBE) -> dict:
    env = {k: v for k, v in os.environ.items() if k != _pth_hook.SELECT_ENV}
    env["PYTHONPATH"] = os.pathsep.join(map(str, paths))
    if select is not None:
        env[_pth_hook.SELECT_ENV] = select
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_pth_line_is_installed_and_matches_the_shipped_file():
    shipped = (ROOT / _pth_hook.PTH_NAME).read_text(encoding="utf-8")
    assert shipped == _pth_hook.PTH_LINE
    installed = Path(sysconfig.get_paths()["purelib"], _pth_hook.PTH_NAME)
    assert installed.read_text(encoding="utf-8") == _pth_hook.PTH_LINE  # `make setup` wrote it


@pytest.mark.parametrize("select", [None, "onprem", "local", ""])
def test_unselected_interpreter_is_untouched(select):
    out = _probe(select=select)
    assert out["finder"] is False and out["arctic_rl_loaded"] is False
    assert "arctic-platform[" in out["error"]  # the published package's own refusal


def test_selected_beside_the_published_package():
    out = _probe(select="cortex")
    assert out["finder"] is True
    assert out["platform_file"].endswith("site-packages/arctic_platform/__init__.py")
    # its rl extras are missing here, so the rl module is this package's stand-in
    assert out["config"] == "arctic_rl._config" and out["factory"] == "arctic_rl._shim"
    assert out["state"] == "arctic_rl._pth_hook"


def test_selected_without_the_published_package():
    out = _probe(select=" Cortex ", paths=[HIDE_PUBLISHED])
    assert out["platform_file"] is None  # no arctic-platform at all: the stand-in package
    assert out["config"] == "arctic_rl._config" and out["factory"] == "arctic_rl._shim"


def test_without_the_published_package_and_unselected_the_name_stays_missing():
    out = _probe(select=None, paths=[HIDE_PUBLISHED])
    assert "No module named 'arctic_platform'" in out["error"]


@pytest.fixture
def importable_published(tmp_path: Path) -> Path:
    """A published-shaped `arctic_platform` whose rl package imports (extras present)."""
    rl = tmp_path / "arctic_platform" / "rl"
    rl.mkdir(parents=True)
    (tmp_path / "arctic_platform" / "__init__.py").write_text("")
    (rl / "__init__.py").write_text(
        "def __getattr__(name):\n"
        "    import importlib\n"
        "    where = {'create_arctic_rl_client': 'client', 'ArcticRLClientConfig': 'config'}\n"
        "    return getattr(importlib.import_module(f'{__name__}.{where[name]}'), name)\n"
    )
    (rl / "config.py").write_text(
        "from pydantic import BaseModel, ConfigDict\n"
        "class ArcticRLClientConfig(BaseModel):\n"
        "    model_config = ConfigDict(extra='ignore')\n"
        "    backend: str = 'local'\n"
        "    model_name: str\n"
        "    host: str | None = None\n"
    )
    (rl / "client.py").write_text(
        "def create_arctic_rl_client(config, state=None):\n"
        "    return ('on-prem', type(config).__module__, config.backend)\n"
    )
    return tmp_path


ON_PREM_PROBE = textwrap.dedent(
    """
    import json
    from arctic_platform.rl import ArcticRLClientConfig, create_arctic_rl_client
    from arctic_rl._shim import _cortex_config
    on_prem = create_arctic_rl_client(ArcticRLClientConfig(model_name="m", backend="dss-platform"))
    local = _cortex_config(ArcticRLClientConfig(model_name="m", backend="local"))
    print(json.dumps({"factory": create_arctic_rl_client.__module__, "on_prem": on_prem,
                      "local": None if local is None else local.backend}))
    """
)


def test_selected_published_keeps_serving_on_prem(importable_published):
    out = _probe(select="cortex", paths=[importable_published], code=ON_PREM_PROBE)
    assert out["factory"] == "arctic_rl._pth_hook"
    assert out["on_prem"] == ["on-prem", "arctic_platform.rl.config", "dss-platform"]
    assert out["local"] == "cortex"  # the frameworks' hard-coded "local" goes to Cortex


def test_unselected_published_factory_is_its_own(importable_published):
    out = _probe(select=None, paths=[importable_published], code=ON_PREM_PROBE)
    assert out["factory"] == "arctic_platform.rl.client"
    assert out["on_prem"] == ["on-prem", "arctic_platform.rl.config", "dss-platform"]
    assert out["local"] is None


LAUNCHER_PROBE = textwrap.dedent(
    """
    import json
    from arctic_platform.rl import ArcticRLClientConfig, create_arctic_rl_client
    config = ArcticRLClientConfig(
        model_name="tiny-byte-lm", backend="local", comm_protocol="ray", host=None, port=None,
        training_gpus=1, sampling_gpus=1,
    )
    client = create_arctic_rl_client(config)
    print(json.dumps({"ids": [client.training_job_id, client.sampling_job_id],
                      "backend": client.config.backend, "url": client.config.cortex.base_url}))
    client.shutdown()
    """
)


@pytest.mark.parametrize("switch", ["ARCTIC_RL_BACKEND", "ARCTIC_BACKEND"])
def test_launcher_override_serves_hard_coded_local_in_a_fresh_process(live_mock, tmp_path, switch):
    """Either switch set to cortex alone (no integration code), settings from the named file."""
    settings = tmp_path / "cortex.yaml"
    settings.write_text(
        f"base_url: {live_mock.root_url}\ndatabase: RL_DB\nschema: PUBLIC\n"
        "pat_env: ARCTIC_LAUNCH_PAT\nlong_poll_s: 2\nprogress: false\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ARCTIC_", "CORTEX_"))}
    env.update(
        {switch: "cortex"},
        ARCTIC_RL_CORTEX_FILE=str(settings),
        ARCTIC_LAUNCH_PAT=live_mock.token,
        PYTHONPATH="",
    )
    done = subprocess.run(
        [sys.executable, "-c", LAUNCHER_PROBE], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["backend"] == "cortex" and out["url"] == live_mock.root_url
    assert out["ids"][0].endswith(":training:0") and out["ids"][1].endswith(":sampling:0")
    assert live_mock.token not in done.stdout + done.stderr


def test_skyrl_dispatch_gets_finalize_pending_saves_only_when_it_lacks_one(caplog):
    from types import ModuleType

    from arctic_rl.integrations.skyrl import complete_dispatch

    def own(self, model=None):
        return "own"

    lacking, having = ModuleType("lacking"), ModuleType("having")
    lacking._ArcticDispatch = type("_ArcticDispatch", (), {})
    having._ArcticDispatch = type("_ArcticDispatch", (), {"finalize_pending_saves": own})
    with caplog.at_level("INFO", logger="arctic_rl"):
        complete_dispatch(lacking)
        complete_dispatch(having)
    assert lacking._ArcticDispatch().finalize_pending_saves("policy") is None
    assert having._ArcticDispatch().finalize_pending_saves("policy") == "own"
    assert len([r for r in caplog.records if "finalize_pending_saves" in r.getMessage()]) == 1
