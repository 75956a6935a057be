"""The client's checkpoint calls: a service checkpoint by id, or a resumable one through a
folder (`_resume`), kept apart from the training and sampling calls."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from arctic_rl._request_models import present, request_model
from arctic_rl._resume import delete_from_folder, is_folder, load_from_folder, save_to_folder

if TYPE_CHECKING:
    from arctic_rl._client import AsyncArcticRLClient

__all__ = ["CheckpointCalls"]


class CheckpointCalls:
    """Save, load, list and delete checkpoints of the client's job (a mixin of
    `AsyncArcticRLClient`: it uses the client's service, job and answers)."""

    async def save_checkpoint(
        self: AsyncArcticRLClient,
        folder: str | os.PathLike[str] | None = None,
        *,
        global_step: int | None = None,
        checkpoint_id: str | None = None,
        checkpoint_type: str | None = None,
    ) -> dict[str, Any]:
        """Save on the service. Given a folder (a path): a resumable checkpoint whose
        identity is written to `<folder>/cortex_checkpoint.json` once the save finished,
        with the framework's `global_step` (docs/reliability.md, "Resume"). A string
        without a separator is today's `checkpoint_id` (the service names it anyway)."""
        if folder is not None and is_folder(folder):
            return await save_to_folder(self, folder, global_step)
        from cortex_gs_client.models import SaveRequest

        fields = present(checkpoint_id=checkpoint_id or folder, checkpoint_type=checkpoint_type)
        body = request_model(SaveRequest, fields)
        return self._answer(await self.service.save_checkpoint(self._require_job_id(), body))

    async def load_checkpoint(
        self: AsyncArcticRLClient,
        checkpoint: str | os.PathLike[str],
        *,
        source_job_id: str | None = None,
        target_sub_job_id: str | None = None,
        load_optimizer_states: bool = True,
    ) -> dict[str, Any]:
        """Load a checkpoint: a folder `save_checkpoint(folder)` wrote (restored and its
        step checked; returns {global_step, service_step, job_id, checkpoint_id}), or a
        service checkpoint id."""
        if is_folder(checkpoint):
            return await load_from_folder(
                self, checkpoint, load_optimizer_states=load_optimizer_states
            )
        fields = present(
            checkpoint_id=checkpoint,
            source_job_id=source_job_id,
            target_sub_job_id=target_sub_job_id,
        )
        from cortex_gs_client.models import LoadRequest

        body = request_model(LoadRequest, fields)
        return self._answer(await self.service.load_checkpoint(self._require_job_id(), body))

    async def list_checkpoints(self: AsyncArcticRLClient) -> list[dict[str, Any]]:
        checkpoints = await self.service.list_checkpoints(self._require_job_id())
        return [checkpoint.to_dict() for checkpoint in checkpoints]

    async def delete_checkpoint(
        self: AsyncArcticRLClient, checkpoint: str | os.PathLike[str]
    ) -> None:
        """Delete a service checkpoint: the one a folder records (for the frameworks'
        retention; one already gone counts as deleted), or one named by its id."""
        if is_folder(checkpoint):
            await delete_from_folder(self, checkpoint)
            return
        await self.service.delete_checkpoint(self._require_job_id(), str(checkpoint))
