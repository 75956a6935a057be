"""The `cortex` backend's forwarder worker: the ActorRollout(Ref) worker verl runs on CPU.

verl starts it as a Ray actor (`RemoteBackendRegistry.get_worker("cortex")`) and calls
it through its single-controller dispatch. It re-attaches to the driver's backend from
the handle verl passes, forwards each compute call to it, and answers in the shapes
verl's trainers read. One class serves both trainers that drive a remote backend:

- release/v0.7.1's `RayPPOTrainer` (`update_weights(global_steps=...)` through the
  checkpoint-engine manager, `save_checkpoint(local_path, hdfs_path, global_step,
  max_ckpt_to_keep=...)`, `load_checkpoint(local_path, del_local_after_load=...)`);
- the V1 trainer (`update_weights(global_steps=..., mode=...)`, compute calls whose
  TensorDict comes out of TransferQueue through verl's dispatch).

Checkpoints: verl saves into `<default_local_dir>/global_step_N/actor`. The worker takes
a resumable Cortex checkpoint and writes its identity there; `load_checkpoint` restores
it on the service and checks the service is at step N, so the step counts carry on from
the checkpoint. `max_ckpt_to_keep` deletes the service checkpoints of the older folders,
and the older role folders, as verl's own checkpoint managers delete their older files.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

from verl.remote_backend.worker_utils import normalize_backend_metrics
from verl.single_controller.base import Worker
from verl.single_controller.base.decorator import (
    Dispatch,
    make_nd_compute_dataproto_dispatch_fn,
    register,
)
from verl.utils import hf_tokenizer
from verl.utils import tensordict_utils as tu

from arctic_rl._errors import CheckpointMismatchError
from arctic_rl._resume import IDENTITY_FILE
from arctic_rl.integrations.verl import attach_backend

# The backend module registers `cortex` in this (Ray worker) process too.
from arctic_rl.integrations.verl import backend as _backend  # noqa: F401
from arctic_rl.integrations.verl._batches import jagged_like

__all__ = ["CortexActorRolloutRefWorker"]

_STEP_FOLDER = re.compile(r"^global_step_(\d+)$")


def _folder_step(local_path: str | Path) -> int | None:
    """N of `.../global_step_N/<role>` (verl's layout), else None."""
    found = _STEP_FOLDER.match(Path(local_path).parent.name)
    return int(found.group(1)) if found else None


def _older_saves(local_path: str | Path, keep: int) -> list[Path]:
    """The saves of this role beside `local_path` beyond the newest `keep`, oldest first."""
    here = Path(local_path)
    saves = []
    for step_dir in here.parent.parent.glob("global_step_*"):
        step = _folder_step(step_dir / here.name)
        if step is not None and (step_dir / here.name / IDENTITY_FILE).is_file():
            saves.append((step, step_dir / here.name))
    saves.sort()
    return [folder for _, folder in saves[: max(0, len(saves) - keep)]]


class CortexActorRolloutRefWorker(Worker):
    """CPU-only forwarder to the `cortex` backend (see the module doc)."""

    def __init__(self, config: Any, role: str, **kwargs: Any) -> None:
        Worker.__init__(self)
        self.config = config
        self.role = role
        self.main_config = kwargs["main_config"]
        self.backend: Any = attach_backend(self.main_config, kwargs["backend_handle"])
        model = config.model
        remote_code = bool(model.get("trust_remote_code", False))
        tokenizer = hf_tokenizer(model.path, trust_remote_code=remote_code)
        pad = tokenizer.pad_token_id
        self.pad_token_id = tokenizer.eos_token_id if pad is None else pad
        self.rollout_n = int(config.rollout.n)

    # -- lifecycle: ONE_TO_ALL on the single forwarder -------------------------------------

    @register(dispatch_mode=Dispatch.ONE_TO_ALL)
    def init_model(self) -> None:
        for mesh in ("actor", "ref", "rollout"):
            self._register_dispatch_collect_info(mesh, dp_rank=self.rank, is_collect=True)

    @register(dispatch_mode=Dispatch.ONE_TO_ALL)
    def to(
        self, device: Any, model: bool = True, optimizer: bool = True, grad: bool = True
    ) -> None:
        """Cortex owns where the model lives."""

    @register(dispatch_mode=Dispatch.ONE_TO_ALL)
    def set_loss_fn(self, loss_fn: Any) -> None:
        """The loss travels with each update request."""

    @register(dispatch_mode=Dispatch.ONE_TO_ALL)
    def reset(self) -> None:
        """Cortex owns the engines' state."""

    @register(dispatch_mode=Dispatch.ONE_TO_ALL, blocking=False)
    async def sleep_replicas(self) -> None:
        """Training and sampling never share GPUs on Cortex."""

    @register(dispatch_mode=Dispatch.ONE_TO_ALL)
    async def destroy(self) -> None:
        if self.backend is not None:
            backend, self.backend = self.backend, None
            await backend.destroy()

    # -- compute ---------------------------------------------------------------------------

    @register(dispatch_mode=make_nd_compute_dataproto_dispatch_fn(mesh_name="ref"))
    async def compute_ref_log_prob(self, data: Any) -> Any:
        return await self._log_prob(data, ref=True, entropy=False)

    @register(dispatch_mode=make_nd_compute_dataproto_dispatch_fn(mesh_name="actor"))
    async def compute_log_prob(self, data: Any) -> Any:
        wants = tu.get_non_tensor_data(data=data, key="calculate_entropy", default=True)
        return await self._log_prob(data, ref=False, entropy=bool(wants))

    async def _log_prob(self, data: Any, *, ref: bool, entropy: bool) -> Any:
        result = await self.backend.compute_log_prob(
            data,
            ref=ref,
            calculate_entropy=entropy,
            rollout_n=self.rollout_n,
            pad_token_id=self.pad_token_id,
        )
        answers = result["model_output"]
        output = {"log_probs": jagged_like(data, answers["log_probs"])}
        if entropy and "entropy" in answers:
            output["entropy"] = jagged_like(data, answers["entropy"])
        metrics = {"mfu": 0.0, **result.get("metrics", {})}
        return tu.get_tensordict(tensor_dict=output, non_tensor_dict={"metrics": metrics})

    @register(dispatch_mode=make_nd_compute_dataproto_dispatch_fn(mesh_name="actor"))
    async def update_actor(self, data: Any) -> Any:
        result = await self.backend.update_actor(
            data,
            actor_config=self.config.actor,
            pad_token_id=self.pad_token_id,
            rollout_n=self.rollout_n,
        )
        # The forwarder's CPU does none of the work: no utilisation figure of its own.
        metrics = {**result["metrics"], "loss": result["loss"], "mfu": 0.0}
        # One verl Metric per key: verl's reduce_metrics aggregates a Metric itself.
        wrapped = normalize_backend_metrics(metrics)
        return tu.get_tensordict(tensor_dict={}, non_tensor_dict={"metrics": wrapped})

    # -- weights and checkpoints -------------------------------------------------------------

    @register(dispatch_mode=Dispatch.ONE_TO_ALL, blocking=False)
    async def update_weights(
        self, global_steps: int | None = None, mode: str | None = None
    ) -> None:
        """verl's trainers pass the step (and V1 the checkpoint engine); Cortex moves the
        weights to its sampling sub-job itself."""
        await self.backend.update_weights()

    @register(dispatch_mode=Dispatch.ONE_TO_ALL)
    async def save_checkpoint(
        self,
        local_path: str,
        hdfs_path: str | None = None,
        global_step: int = 0,
        max_ckpt_to_keep: int | None = None,
    ) -> dict[str, Any]:
        """Blocking, so training does not move on before the service's save finished."""
        saved = await self.backend.save_checkpoint(str(local_path), global_step=int(global_step))
        if max_ckpt_to_keep and max_ckpt_to_keep > 0:
            for folder in _older_saves(local_path, int(max_ckpt_to_keep)):
                await self.backend.delete_checkpoint(str(folder))
                shutil.rmtree(folder)
        return dict(saved)

    @register(dispatch_mode=Dispatch.ONE_TO_ALL)
    async def load_checkpoint(
        self, local_path: str, hdfs_path: str | None = None, del_local_after_load: bool = False
    ) -> dict[str, Any]:
        """Restore the Cortex checkpoint saved in `local_path`; its identity file stays
        (it is small and names a service checkpoint, not local weights)."""
        loaded = dict(await self.backend.load_checkpoint(str(local_path)))
        expected = _folder_step(local_path)
        if expected is not None and loaded.get("global_step") != expected:
            raise CheckpointMismatchError(
                f"{local_path} resumes verl at step {expected}, but its Cortex checkpoint "
                f"{loaded.get('checkpoint_id')} was taken at step {loaded.get('global_step')}"
            )
        return loaded
