"""The README stays true: its make targets exist, its paths exist, its yaml really works."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml
from omegaconf import OmegaConf

from arctic_rl import _shim
from arctic_rl.integrations.verl import GROUP_FILE
from tests.client.standins import skyrl_like

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
MAKEFILE = (ROOT / "Makefile").read_text(encoding="utf-8")


def _block_after(marker: str) -> str:
    """The fenced block that follows ``<!-- readme-test: marker -->``."""
    found = re.search(rf"<!-- readme-test: {marker} -->\s*```\w*\n(.*?)```", README, re.S)
    assert found, f"README has no block marked {marker!r}"
    return found.group(1)


def test_every_make_target_in_the_readme_exists():
    targets = set(re.findall(r"^([a-z][\w-]*):", MAKEFILE, re.M))
    used = set(re.findall(r"`make ([a-z][\w-]*)", README))
    assert used and used <= targets, used - targets


def test_every_path_in_the_readme_exists():
    paths = set(re.findall(r"\]\(((?!https?:)[^)#]+)\)", README))  # markdown links
    paths |= {p for p in re.findall(r"`([\w./-]+/[\w./-]*)`", README) if "/" in p}
    skip = ("demo-output/", "bench-results/", "site/")  # made by the commands themselves
    missing = [
        p
        for p in sorted(paths)
        if not p.startswith(skip) and not p.startswith(("pkg:", "http")) and "{" not in p
        and not (ROOT / p).exists()
    ]  # fmt: skip
    assert not missing


def test_verl_overrides_name_real_settings():
    group = yaml.safe_load(GROUP_FILE.read_text(encoding="utf-8"))
    keys = re.findall(r"remote_backend\.cortex\.(\w+)=", README)
    assert keys and all(k in group["cortex"] for k in keys), keys


async def test_skyrl_yaml_drives_skyrl_against_the_mock(live_mock, monkeypatch):
    """The README's SkyRL yaml, pointed at the mock, runs SkyRL's sequence through the shim."""
    documented = yaml.safe_load(_block_after("skyrl"))
    cortex = documented["trainer"]["arctic_rl"]["cortex"]
    monkeypatch.setenv(cortex["pat_env"], live_mock.token)
    # A SkyRL driver imports the entrypoint once, fresh; earlier tests may have imported it.
    monkeypatch.delitem(sys.modules, documented["trainer"]["override_entrypoint"], raising=False)
    cfg = OmegaConf.merge(
        OmegaConf.create(documented),
        {"trainer": {"policy": {"model": {"path": "tiny-byte-lm"}},
                     "arctic_rl": {"cortex": {"base_url": live_mock.base_url}}}},
    )  # fmt: skip
    try:
        client, ids = skyrl_like.build_client(cfg)
        try:
            seen = await skyrl_like.train_iteration(client)
        finally:
            client.shutdown()
    finally:
        _shim.route_on_prem_to_cortex(False)
    assert ids[0] == f"{client.job_id}:training:0"
    assert seen["checkpoint"] and seen["last_lr"] is not None


def test_layout_row_names_every_test_folder():
    row = next(line for line in README.splitlines() if line.startswith("| `tests/` |"))
    folders = [p.name for p in (ROOT / "tests").iterdir() if (p / "__init__.py").is_file()]
    assert folders and all(name in row for name in folders), folders
