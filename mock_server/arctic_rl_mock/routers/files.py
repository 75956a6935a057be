"""The mock's export download links: outside the contract's prefix and its auth.

The signed link is the credential, as with the service's pre-signed URLs.
"""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import FileResponse

from arctic_rl_mock.dependencies import ServiceDep
from arctic_rl_mock.services.exports import FILES_PATH

router = APIRouter()


@router.get(FILES_PATH + "/{token}", include_in_schema=False)
async def download_export(token: str, service: ServiceDep) -> FileResponse:
    """What an export link serves: the file itself, no auth header needed."""
    path = service.exports.resolve(token)
    return FileResponse(path, media_type="application/octet-stream", filename=path.name)
