# generated from openapi/cortex_gs.yaml by make generate; do not edit
from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.checkpoint_export import CheckpointExport
from ...models.error import Error
from ...types import Response


def _get_kwargs(
    job_id: str,
    checkpoint_id: str,
) -> dict[str, Any]:

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/{job_id}/checkpoints/{checkpoint_id}:export".format(
            job_id=quote(str(job_id), safe=""),
            checkpoint_id=quote(str(checkpoint_id), safe=""),
        ),
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> CheckpointExport | Error | None:
    if response.status_code == 200:
        response_200 = CheckpointExport.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

    if response.status_code == 404:
        response_404 = Error.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = Error.from_dict(response.json())

        return response_409

    if response.status_code == 422:
        response_422 = Error.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = Error.from_dict(response.json())

        return response_429

    if response.status_code == 500:
        response_500 = Error.from_dict(response.json())

        return response_500

    if response.status_code == 503:
        response_503 = Error.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[CheckpointExport | Error]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    job_id: str,
    checkpoint_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[CheckpointExport | Error]:
    """Export a checkpoint's files

     Answers short-lived download links for the checkpoint's files. The request has no body.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        checkpoint_id (str): A checkpoint's id, as the service named it (after the global step).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CheckpointExport | Error]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        checkpoint_id=checkpoint_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    job_id: str,
    checkpoint_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> CheckpointExport | Error | None:
    """Export a checkpoint's files

     Answers short-lived download links for the checkpoint's files. The request has no body.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        checkpoint_id (str): A checkpoint's id, as the service named it (after the global step).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CheckpointExport | Error
    """

    return sync_detailed(
        job_id=job_id,
        checkpoint_id=checkpoint_id,
        client=client,
    ).parsed


async def asyncio_detailed(
    job_id: str,
    checkpoint_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> Response[CheckpointExport | Error]:
    """Export a checkpoint's files

     Answers short-lived download links for the checkpoint's files. The request has no body.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        checkpoint_id (str): A checkpoint's id, as the service named it (after the global step).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CheckpointExport | Error]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        checkpoint_id=checkpoint_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    job_id: str,
    checkpoint_id: str,
    *,
    client: AuthenticatedClient | Client,
) -> CheckpointExport | Error | None:
    """Export a checkpoint's files

     Answers short-lived download links for the checkpoint's files. The request has no body.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        checkpoint_id (str): A checkpoint's id, as the service named it (after the global step).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CheckpointExport | Error
    """

    return (
        await asyncio_detailed(
            job_id=job_id,
            checkpoint_id=checkpoint_id,
            client=client,
        )
    ).parsed
