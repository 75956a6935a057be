"""Resume: a Cortex checkpoint tied to the folder a framework saves its own state in.

A framework that resumes (SkyRL's `trainer.resume_mode=latest`, verl's `auto`) restores
its dataloader and step from a folder it chose; the model and optimizer live on the
service. Saving into a folder therefore takes a resumable Cortex checkpoint, waits until
the service lists it, and only then writes the checkpoint's identity beside the
framework's files (`cortex_checkpoint.json`, atomically), so a folder never names a save
that did not finish. Loading from that folder restores the checkpoint on the service
(into the client's running job, from another job's checkpoint if need be, or into a new
job made from it) and checks that the service's step is the recorded one: a folder
without an identity, or one from another model, is an error, never a fresh start.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from arctic_rl._errors import CheckpointIdentityError, CheckpointMismatchError, NotFoundError

if TYPE_CHECKING:
    from arctic_rl._client import AsyncArcticRLClient

__all__ = [
    "IDENTITY_FILE",
    "CheckpointIdentity",
    "delete_from_folder",
    "is_folder",
    "load_from_folder",
    "read_identity",
    "save_to_folder",
]

log = logging.getLogger("arctic_rl")

IDENTITY_FILE = "cortex_checkpoint.json"
FORMAT_VERSION = 1
RESUMABLE = "resumable"


@dataclass(frozen=True)
class CheckpointIdentity:
    """What `cortex_checkpoint.json` records: which service checkpoint a folder stands for.

    `global_step` is the framework's step, `service_step` the service's optimizer steps
    (they differ when a trainer step holds several optimizer steps)."""

    job_id: str
    checkpoint_id: str
    global_step: int | None
    service_step: int
    model_name: str
    base_url: str
    format: int = FORMAT_VERSION

    def write(self, folder: Path) -> Path:
        """Write the identity into `folder`, atomically (temp file, fsync, rename)."""
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / IDENTITY_FILE
        temp = folder / f".{IDENTITY_FILE}.{os.getpid()}.tmp"
        with open(temp, "w", encoding="utf-8") as out:
            json.dump(asdict(self), out, indent=2, sort_keys=True)
            out.write("\n")
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, target)
        return target


def is_folder(target: str | os.PathLike[str]) -> bool:
    """A path (a PathLike, or a string with a separator, or an existing directory) rather
    than a service checkpoint id (ids such as `global_step12` never hold a separator)."""
    if isinstance(target, os.PathLike):
        return True
    return os.sep in target or "/" in target or os.path.isdir(target)


def read_identity(folder: str | os.PathLike[str]) -> CheckpointIdentity:
    """The identity recorded in `folder`; `CheckpointIdentityError` when there is none or
    it cannot be read."""
    path = Path(folder) / IDENTITY_FILE
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CheckpointIdentityError(
            f"{folder} holds no Cortex checkpoint identity ({IDENTITY_FILE}): it was not "
            f"saved through arctic_rl's save_checkpoint(folder), so there is nothing on "
            f"the service to resume from"
        ) from None
    except (OSError, ValueError) as exc:
        raise CheckpointIdentityError(f"{path} is unreadable: {exc}") from None
    if not isinstance(record, dict) or record.get("format") != FORMAT_VERSION:
        found = record.get("format") if isinstance(record, dict) else None
        raise CheckpointIdentityError(
            f"{path} has format {found!r}; this arctic_rl reads format {FORMAT_VERSION}"
        )
    try:
        return CheckpointIdentity(**record)
    except TypeError as exc:
        raise CheckpointIdentityError(f"{path} is not a checkpoint identity: {exc}") from None


async def save_to_folder(
    client: AsyncArcticRLClient, folder: str | os.PathLike[str], global_step: int | None
) -> dict[str, Any]:
    """Take a resumable checkpoint, wait until the service lists it, then record it in
    `folder`. Returns the service's answer with the identity's fields."""
    job_id = client._require_job_id()
    saved = await client.save_checkpoint(checkpoint_type=RESUMABLE)
    checkpoint_id = str(saved["checkpoint_id"])
    service_step = await _listed_step(client, job_id, checkpoint_id)
    if service_step is None:
        raise CheckpointMismatchError(
            f"the service answered the save with checkpoint {checkpoint_id}, but job "
            f"{job_id} does not list it; nothing was recorded in {folder}"
        )
    identity = CheckpointIdentity(
        job_id=job_id,
        checkpoint_id=checkpoint_id,
        global_step=global_step,
        service_step=service_step,
        model_name=client.config.model_name,
        base_url=_public_url(client.config.cortex.url()),
    )
    path = identity.write(Path(folder))
    log.info(
        "arctic_rl: saved Cortex checkpoint %s of job %s (service step %d) for %s",
        checkpoint_id,
        job_id,
        service_step,
        path,
    )
    return {**saved, **_summary(identity)}


async def load_from_folder(
    client: AsyncArcticRLClient,
    folder: str | os.PathLike[str],
    *,
    load_optimizer_states: bool = True,
) -> dict[str, Any]:
    """Restore the checkpoint `folder` records and check the service's step against it.

    A client with a job loads into it (`/load`, naming the recorded job when it is
    another one); a client not yet started attaches to the recorded job when it still
    runs, else creates its job from the checkpoint (`source_checkpoint_info`, with
    `load_optimizer_states`). The restored weights are then synced to the job's sampling
    sub-jobs, which a load leaves as they were."""
    identity = read_identity(folder)
    model = client.config.model_name
    if identity.model_name != model:
        raise CheckpointIdentityError(
            f"{folder} records a checkpoint of {identity.model_name!r} (job "
            f"{identity.job_id}); this client trains {model!r}"
        )
    other = None
    if client.job_id is None and not await _attach_if_running(client, identity.job_id):
        await client.start(
            source_checkpoint={
                "checkpoint_id": identity.checkpoint_id,
                "source_job_id": identity.job_id,
            },
            load_optimizer_states=load_optimizer_states,
        )
        step = await _listed_step(client, identity.job_id, identity.checkpoint_id)
    else:
        other = identity.job_id if identity.job_id != client.job_id else None
        answer = await client.load_checkpoint(identity.checkpoint_id, source_job_id=other)
        step = answer.get("global_steps")
        if step is None:  # the answer's metadata is open: fall back on the listing
            step = await _listed_step(client, identity.job_id, identity.checkpoint_id)
    if step is None or int(step) != identity.service_step:
        raise CheckpointMismatchError(
            f"{folder} records service step {identity.service_step} for checkpoint "
            f"{identity.checkpoint_id} of job {identity.job_id}; the service's step after "
            f"loading it is {step}"
        )
    if "sampling" in client.sub_jobs:  # the sampler serves the restored weights, not stale ones
        await client.sync_weights()
    if other is not None and await _still_running(client, other):
        log.warning(
            "arctic_rl: job %s, whose checkpoint this run resumed from, still runs (its "
            "driver stopped without cancelling it): cancel it if nothing else uses it",
            other,
        )
    log.info(
        "arctic_rl: resumed job %s from checkpoint %s of job %s (service step %d, step %s)",
        client.job_id,
        identity.checkpoint_id,
        identity.job_id,
        identity.service_step,
        identity.global_step,
    )
    return _summary(identity)


async def delete_from_folder(
    client: AsyncArcticRLClient, folder: str | os.PathLike[str]
) -> dict[str, Any]:
    """Delete the service checkpoint `folder` records (the folder is the framework's to
    remove). One already gone counts as deleted."""
    identity = read_identity(folder)
    await delete_identity(client, identity)
    return _summary(identity)


async def delete_identity(client: AsyncArcticRLClient, identity: CheckpointIdentity) -> None:
    """Delete the service checkpoint an identity names (retention: idempotent)."""
    try:
        await client.service.delete_checkpoint(identity.job_id, identity.checkpoint_id)
    except NotFoundError:
        log.debug("arctic_rl: checkpoint %s already gone", identity.checkpoint_id)
        return
    log.info(
        "arctic_rl: deleted Cortex checkpoint %s of job %s",
        identity.checkpoint_id,
        identity.job_id,
    )


async def _still_running(client: AsyncArcticRLClient, job_id: str) -> bool:
    from arctic_rl._tracking import normalize_state

    try:
        job = await client.service.get_job(job_id)
    except NotFoundError:
        return False
    return normalize_state(job.status) == "running"


async def _attach_if_running(client: AsyncArcticRLClient, job_id: str) -> bool:
    """Make a client not yet started attach to `job_id` when that job still runs."""
    if not await _still_running(client, job_id):
        return False
    await client.start(job_id=job_id)
    return True


async def _listed_step(client: AsyncArcticRLClient, job_id: str, checkpoint_id: str) -> int | None:
    """The service step the job's checkpoint list gives `checkpoint_id` (None: unlisted)."""
    for listed in await client.service.list_checkpoints(job_id):
        row = listed.to_dict()
        if row.get("checkpoint_id") == checkpoint_id:
            return int(row.get("global_steps") or 0)
    return None


def _summary(identity: CheckpointIdentity) -> dict[str, Any]:
    return {
        "global_step": identity.global_step,
        "service_step": identity.service_step,
        "job_id": identity.job_id,
        "checkpoint_id": identity.checkpoint_id,
    }


def _public_url(url: str) -> str:
    """The service URL without credentials or query (nothing secret goes into a file)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))
