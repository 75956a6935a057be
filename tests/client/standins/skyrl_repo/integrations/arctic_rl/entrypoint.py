"""SkyRL's Arctic entrypoint, replayed: driver, then a fresh "Ray task" process.

The driver strips its dispatch flag, parses strictly, calls the factory once with one
argument, takes `reconnect_config()` and `get_server_state()` (comm_protocol "ray"),
then starts the task in a new interpreter whose environment holds only `ARCTIC_*` and
`WANDB_*` variables (what SkyRL forwards) plus the import path. The task imports this
module by itself and calls `create_arctic_rl_client(reconnect_config, server_state)`.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

from arctic_platform.rl import ArcticRLClientConfig, create_arctic_rl_client

from .config import build_rl_config, parse
from .trainer import train

ITERATIONS_KEY = "ARCTIC_REPLAY_ITERATIONS"  # forwarded like any ARCTIC_* variable


def skyrl_entrypoint(cfg: dict[str, Any], reconnect_config: Any, server_state: Any) -> None:
    client = create_arctic_rl_client(reconnect_config, server_state)
    report = {
        "config_type": f"{type(reconnect_config).__module__}.{type(reconnect_config).__name__}",
        "job_ids": [client.training_job_id, client.sampling_job_id, client.log_prob_job_id],
        **train(client, cfg, int(os.environ.get(ITERATIONS_KEY, "12"))),
    }
    client.shutdown()
    Path(cfg["trainer.export_path"], "report.json").write_text(json.dumps(report))


def main() -> None:
    argv = [a for a in sys.argv[1:] if not a.startswith("trainer.override_entrypoint=")]
    cfg = parse(argv)
    rl_config = build_rl_config(cfg)
    assert isinstance(rl_config, ArcticRLClientConfig)
    pre_client = create_arctic_rl_client(rl_config)
    reconnect_cfg = pre_client.reconnect_config()
    server_state = pre_client.get_server_state() if rl_config.comm_protocol == "ray" else None
    handoff = Path(cfg["trainer.export_path"], "task.pickle")
    handoff.write_bytes(pickle.dumps((cfg, reconnect_cfg, server_state)))
    env = {k: v for k, v in os.environ.items() if k.startswith(("ARCTIC_", "WANDB_"))}
    env["PYTHONPATH"] = os.environ.get("PYTHONPATH", "")
    env["OMP_NUM_THREADS"] = "1"
    task = (
        "import pickle, sys\n"
        "from integrations.arctic_rl.entrypoint import skyrl_entrypoint\n"
        "skyrl_entrypoint(*pickle.loads(open(sys.argv[1], 'rb').read()))\n"
    )
    subprocess.run([sys.executable, "-c", task, str(handoff)], env=env, check=True)
