"""The documented verl commands (docs/verl.md), composed with Hydra's compose API.

verl's config is not installed here, so each verl's trainer config is rebuilt from its
documented shape: the keys the commands touch, with verl's defaults (8 GPUs per node, 8
agent-loop workers), and the one difference that matters, the defaults list. The merged
verl (release/v0.7.1) lists `optional remote_backend@remote_backend: null`; pre-merge
builds list no `remote_backend` entry. The group file is found through
`hydra.searchpath=[pkg://arctic_rl.integrations.verl]`, exactly as verl's Hydra finds it.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
import yaml
from hydra import compose, initialize_config_dir
from hydra.errors import ConfigCompositionException
from omegaconf import DictConfig

from arctic_rl.integrations.verl import GROUP_FILE, cortex_settings

ROOT = Path(__file__).resolve().parents[2]
GUIDE = (ROOT / "docs" / "verl.md").read_text(encoding="utf-8")
TRAINER = {
    "trainer": {"remote_backend": None, "n_gpus_per_node": 8, "nnodes": 1},
    "actor_rollout_ref": {
        "rollout": {
            "name": "vllm",
            "n": 1,
            "tensor_model_parallel_size": 2,
            "agent": {"num_workers": 8},
        }
    },
}
DEFAULTS = {
    "merged": [{"optional remote_backend@remote_backend": None}, "_self_"],
    "fork": ["_self_"],
}


def documented(version: str) -> tuple[dict[str, str], list[str]]:
    """The guide's command for this verl: its exports and its Hydra overrides."""
    block = re.search(rf"<!-- verl-command: {version} -->\n```sh\n(.*?)```", GUIDE, re.S)
    assert block is not None, version
    text = block.group(1).replace("\\\n", " ")
    exports = dict(re.findall(r"^export (\w+)=(\S+)$", text, re.M))
    command = next(line for line in text.splitlines() if "verl.trainer.main_ppo" in line)
    args = shlex.split(command)
    assert args[:3] == ["python", "-m", "verl.trainer.main_ppo"]
    return exports, [a for a in args[3:] if a != "..."]


def composed(tmp_path: Path, version: str, overrides: list[str]) -> DictConfig:
    folder = tmp_path / version
    folder.mkdir(exist_ok=True)
    trainer = {"defaults": DEFAULTS[version], **TRAINER}
    (folder / "ppo_trainer.yaml").write_text(yaml.safe_dump(trainer), encoding="utf-8")
    with initialize_config_dir(config_dir=str(folder), version_base=None):
        return compose(config_name="ppo_trainer", overrides=overrides)


@pytest.mark.parametrize("version", sorted(DEFAULTS))
def test_the_documented_command_composes_with_hydra(tmp_path, version):
    exports, overrides = documented(version)
    assert exports["VERL_USE_EXTERNAL_MODULES"] == "arctic_rl.integrations.verl.register"
    cfg = composed(tmp_path, version, overrides)
    assert cfg.trainer.remote_backend == "cortex"
    assert cfg.actor_rollout_ref.rollout.name == "cortex"
    # verl makes one replica per tensor_model_parallel_size forwarders: one forwarder, one replica
    assert cfg.actor_rollout_ref.rollout.tensor_model_parallel_size == 1
    # the group file, flat at remote_backend, with the command's settings in its cortex block
    group = yaml.safe_load(GROUP_FILE.read_text(encoding="utf-8"))
    assert set(cfg.remote_backend) == set(group)
    assert cfg.remote_backend.train.zorro_train.max_rollouts == 1  # its interpolation resolves
    cortex = cortex_settings(cfg)
    assert cortex.host == "myorg-myaccount.snowflakecomputing.com"
    assert (cortex.database, cortex.schema_) == ("RL_DB", "PUBLIC")
    # verl's remote-backend trainer: one forwarder worker, one rollout replica
    assert cfg.trainer.n_gpus_per_node * cfg.trainer.nnodes == 1
    assert cfg.actor_rollout_ref.rollout.agent.num_workers == 1


def test_each_version_needs_its_own_group_key(tmp_path):
    """`remote_backend=cortex` overrides an entry only the merged defaults list has;
    `+remote_backend=cortex` appends one, which the merged list already holds."""
    _, merged = documented("merged")
    _, fork = documented("fork")
    assert "remote_backend=cortex" in merged and "+remote_backend=cortex" in fork
    with pytest.raises(ConfigCompositionException, match="remote_backend"):
        composed(tmp_path, "fork", merged)
    with pytest.raises(ConfigCompositionException, match="remote_backend"):
        composed(tmp_path, "merged", fork)
