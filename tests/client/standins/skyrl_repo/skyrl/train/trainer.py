"""SkyRL's `RayPPOTrainer` (skyrl/train/trainer.py), replayed where it saves, resumes and
prunes checkpoints; the Arctic trainer supplies each step's work.

`train()`: with `trainer.resume_mode` latest, `load_checkpoints()` reads
`latest_ckpt_global_step.txt` and hands `global_step_N/policy` to the dispatch's
`load_checkpoint`; then weights are synced for sampling, and each step trains, saves
every `trainer.ckpt_interval` steps (`save_checkpoints`: the dispatch's
`save_checkpoint(model, global_step_N/policy)`, the trainer state, the latest file,
then `_cleanup_old_checkpoints` keeping `trainer.max_ckpts_to_keep`), syncs and logs
the step's metrics (here: a line of `metrics.jsonl` in the export path). A final save
follows the last step unless it just saved; `finalize_pending_saves` ends it.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
from pathlib import Path
from typing import Any

GLOBAL_STEP_PREFIX = "global_step_"
HOLD_ENV = "ARCTIC_REPLAY_HOLD_AFTER_STEP"  # test hook: stop here until killed


def cleanup_old_checkpoints(checkpoint_base_path: str, max_checkpoints: int) -> None:
    """SkyRL's `trainer_utils.cleanup_old_checkpoints`: keep the newest folders."""
    if max_checkpoints < 0:
        return
    root = Path(checkpoint_base_path)
    folders = sorted(
        (p for p in root.glob(f"{GLOBAL_STEP_PREFIX}*") if p.is_dir()),
        key=lambda p: int(p.name.removeprefix(GLOBAL_STEP_PREFIX)),
    )
    for folder in folders[: len(folders) - max_checkpoints] if max_checkpoints else folders:
        shutil.rmtree(folder)


class RayPPOTrainer:
    def __init__(self, cfg: dict[str, Any]) -> None:
        self.cfg = cfg
        self.global_step = 0
        self.dispatch: Any = None
        self.all_metrics: dict[str, Any] = {}
        self.build_models()

    def build_models(self) -> None:
        raise NotImplementedError

    async def run_step(self) -> dict[str, Any]:
        raise NotImplementedError

    async def train(self) -> None:
        if self.cfg["trainer.resume_mode"] not in (None, "none"):
            self.global_step = self.load_checkpoints()
        await self.dispatch.save_weights_for_sampler()
        self.global_step += 1
        total = self.cfg["trainer.total_steps"]
        interval = self.cfg["trainer.ckpt_interval"]
        saved = False
        log = Path(self.cfg["trainer.export_path"], "metrics.jsonl")
        while self.global_step <= total:
            metrics = await self.run_step()
            saved = interval > 0 and self.global_step % interval == 0
            if saved:
                self.save_checkpoints()
            await self.dispatch.save_weights_for_sampler()
            with open(log, "a", encoding="utf-8") as out:
                out.write(json.dumps({"global_step": self.global_step, **metrics}) + "\n")
            if saved and os.environ.get(HOLD_ENV) == str(self.global_step):
                Path(self.cfg["trainer.export_path"], "held").write_text(str(self.global_step))
                await asyncio.Event().wait()  # the test kills the process here
            self.global_step += 1
        self.global_step -= 1
        if interval > 0 and not saved:
            self.save_checkpoints()
        self.dispatch.finalize_pending_saves("policy")

    def save_checkpoints(self) -> str:
        folder = os.path.join(
            self.cfg["trainer.ckpt_path"], f"{GLOBAL_STEP_PREFIX}{self.global_step}"
        )
        os.makedirs(folder, exist_ok=True)
        self.dispatch.save_checkpoint("policy", os.path.join(folder, "policy"), None)
        Path(folder, "trainer_state.json").write_text(json.dumps({"global_step": self.global_step}))
        latest = Path(self.cfg["trainer.ckpt_path"], "latest_ckpt_global_step.txt")
        latest.write_text(str(self.global_step))
        self._cleanup_old_checkpoints()
        return folder

    def _cleanup_old_checkpoints(self) -> None:
        cleanup_old_checkpoints(
            self.cfg["trainer.ckpt_path"], self.cfg["trainer.max_ckpts_to_keep"]
        )

    def load_checkpoints(self) -> int:
        latest = Path(self.cfg["trainer.ckpt_path"], "latest_ckpt_global_step.txt")
        if not latest.exists():
            return 0
        step = int(latest.read_text().strip())
        folder = os.path.join(self.cfg["trainer.ckpt_path"], f"{GLOBAL_STEP_PREFIX}{step}")
        self.dispatch.load_checkpoint(
            "policy",
            os.path.join(folder, "policy"),
            load_optimizer_states=True,
            load_lr_scheduler_states=True,
        )
        return step
