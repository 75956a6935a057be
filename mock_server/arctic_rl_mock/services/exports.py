"""Checkpoint export: short-lived signed download links to a checkpoint's files.

Today's service answers ``:export`` with pre-signed URLs. The mock signs its own: an
HMAC over (job, checkpoint, file, expiry) with a key that lives only as long as the
process, served by ``GET /_mock/checkpoint-files/{token}`` without an auth header (the
signature is the credential, as with a pre-signed URL). Outside the contract's prefix.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from pathlib import Path
from typing import Any

from cortex_gs_contract import ErrorCode

from arctic_rl_mock.errors import ApiError
from arctic_rl_mock.store import Store

EXPORT_TTL_S = 3600
FILES_PATH = "/_mock/checkpoint-files"


class ExportSigner:
    """Signs and checks download tokens for one mock process."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._key = secrets.token_bytes(32)

    def _sign(self, claims: bytes) -> str:
        return hmac.new(self._key, claims, hashlib.sha256).hexdigest()

    def export(self, job_id: str, checkpoint_id: str, base_url: str) -> dict[str, Any]:
        """``{checkpoint_id, files: [{filename, url, size_bytes}], expires_at}`` (epoch s)."""
        directory = self.store.files.checkpoint_dir(job_id, checkpoint_id)
        expires = int(time.time()) + EXPORT_TTL_S
        files = []
        for path in sorted(p for p in directory.rglob("*") if p.is_file()):
            name = path.relative_to(directory).as_posix()
            claims = json.dumps([job_id, checkpoint_id, name, expires]).encode()
            token = base64.urlsafe_b64encode(claims).decode().rstrip("=")
            url = f"{base_url.rstrip('/')}{FILES_PATH}/{token}.{self._sign(claims)}"
            files.append({"filename": name, "url": url, "size_bytes": path.stat().st_size})
        return {"checkpoint_id": checkpoint_id, "files": files, "expires_at": float(expires)}

    def resolve(self, token: str) -> Path:
        """The file a token grants, or 404 (bad or expired signatures reveal nothing more)."""
        gone = ApiError(404, ErrorCode.not_found, "no such export link (it may have expired)")
        encoded, _, signature = token.partition(".")
        try:
            claims = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))
            job_id, checkpoint_id, name, expires = json.loads(claims)
        except ValueError as exc:
            raise gone from exc
        if not hmac.compare_digest(signature, self._sign(claims)) or time.time() > expires:
            raise gone
        directory = self.store.files.checkpoint_dir(str(job_id), str(checkpoint_id)).resolve()
        path = (directory / str(name)).resolve()
        if directory not in path.parents or not path.is_file():
            raise gone
        return path
