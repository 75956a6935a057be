"""Both framework entrypoints say how they are used when run or imported wrongly, instead
of doing nothing or failing on a module name that means nothing to the user."""

from __future__ import annotations

import subprocess
import sys

import pytest

from arctic_rl import ConfigError
from arctic_rl.integrations import skyrl


@pytest.mark.parametrize(
    ("module", "usage"),
    [
        (
            "arctic_rl.integrations.skyrl",
            "trainer.override_entrypoint=arctic_rl.integrations.skyrl",
        ),
        ("arctic_rl.integrations.verl", "VERL_USE_EXTERNAL_MODULES=arctic_rl.integrations.verl"),
    ],
)
def test_running_an_entrypoint_as_a_command_prints_its_usage(module, usage):
    done = subprocess.run(
        [sys.executable, "-m", module], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2
    assert "not a command of its own" in done.stderr
    assert usage in done.stderr


def test_importing_the_verl_plugin_without_verl_says_what_to_install():
    done = subprocess.run(
        [sys.executable, "-c", "import arctic_rl.integrations.verl.register"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1
    assert "ImportError: arctic_rl.integrations.verl.register is verl's plugin: install verl" in (
        done.stderr
    )


@pytest.fixture
def skyrl_main(monkeypatch):
    """SkyRL's call of ``main()``, the Cortex settings taken as given."""
    monkeypatch.setattr(sys, "argv", ["main_base", "arctic_rl.cortex.host=h"])
    monkeypatch.setattr(skyrl, "_checked", lambda settings, environ: settings)
    monkeypatch.setattr(skyrl, "use_cortex", lambda settings: None)
    monkeypatch.setenv("ARCTIC_RL_BACKEND", "local")  # restored after main() sets it
    return skyrl.main


def test_the_skyrl_entrypoint_without_skyrl_says_so(skyrl_main):
    with pytest.raises(ConfigError, match=r"SkyRL is not installed here \(integrations\.arctic"):
        skyrl_main()


def test_a_pip_installed_skyrl_is_told_to_run_from_a_source_checkout(
    skyrl_main, monkeypatch, tmp_path
):
    """The released skyrl package has ``skyrl`` but not the checkout's ``integrations``."""
    (tmp_path / "skyrl" / "train").mkdir(parents=True)
    (tmp_path / "skyrl" / "__init__.py").write_text("")
    (tmp_path / "skyrl" / "train" / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ConfigError) as raised:
        skyrl_main()
    said = str(raised.value)
    assert "installed package without integrations.arctic_rl.entrypoint" in said
    assert "root of a SkyRL source checkout" in said and skyrl.SKYRL_PROVEN_COMMIT in said
