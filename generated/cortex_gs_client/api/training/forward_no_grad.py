# generated from openapi/cortex_gs.yaml by make generate; do not edit
from collections.abc import Sized
from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.accepted_request import AcceptedRequest
from ...models.chunk_accepted import ChunkAccepted
from ...models.error import Error
from ...models.request_status import RequestStatus
from ...types import UNSET, File, Response, Unset


def _get_kwargs(
    job_id: str,
    *,
    body: File,
    wait_s: float | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    params: dict[str, Any] = {}

    params["wait_s"] = wait_s

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/{job_id}/forward-no-grad".format(
            job_id=quote(str(job_id), safe=""),
        ),
        "params": params,
    }

    _kwargs["content"] = body.payload
    if isinstance(body.payload, Sized):
        headers["Content-Length"] = str(len(body.payload))

    headers["Content-Type"] = "application/octet-stream"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AcceptedRequest | ChunkAccepted | RequestStatus | Error | None:
    if response.status_code == 200:

        def _parse_response_200(data: object) -> ChunkAccepted | RequestStatus:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_chunk_answer_type_0 = ChunkAccepted.from_dict(data)

                return componentsschemas_chunk_answer_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            if not isinstance(data, dict):
                raise TypeError()
            componentsschemas_chunk_answer_type_1 = RequestStatus.from_dict(data)

            return componentsschemas_chunk_answer_type_1

        response_200 = _parse_response_200(response.json())

        return response_200

    if response.status_code == 202:
        response_202 = AcceptedRequest.from_dict(response.json())

        return response_202

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

    if response.status_code == 413:
        response_413 = Error.from_dict(response.json())

        return response_413

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

    if response.status_code == 507:
        response_507 = Error.from_dict(response.json())

        return response_507

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[AcceptedRequest | ChunkAccepted | RequestStatus | Error]:
    try:
        parsed = _parse_response(client=client, response=response)
    except (KeyError, TypeError, ValueError):
        parsed = None
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=parsed,
    )


def sync_detailed(
    job_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: File,
    wait_s: float | Unset = UNSET,
) -> Response[AcceptedRequest | ChunkAccepted | RequestStatus | Error]:
    """Forward pass without gradients (a frame, or one chunk of it; proposed)

     Sends a DSSST1 frame holding a `ForwardNoGradBatch`, as forward-backward does: a chunk
    envelope (operation `fwd-no-grad`) or the bare frame when it fits (nothing changes
    state, so a bare frame's lack of an idempotency identity costs nothing); chunk-group
    rules and answers are those of forward-backward. It runs on the training sub-job (current policy)
    or, with
    `reference_model: true`, on the job's `log_probability` sub-job (the frozen reference
    model). It does not replace or change the `forward` operation. The polled result is a
    DSSST1 `ForwardNoGradResult`.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        wait_s (float | Unset):
        body (File):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AcceptedRequest | ChunkAccepted | RequestStatus | Error]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        body=body,
        wait_s=wait_s,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    job_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: File,
    wait_s: float | Unset = UNSET,
) -> AcceptedRequest | ChunkAccepted | RequestStatus | Error | None:
    """Forward pass without gradients (a frame, or one chunk of it; proposed)

     Sends a DSSST1 frame holding a `ForwardNoGradBatch`, as forward-backward does: a chunk
    envelope (operation `fwd-no-grad`) or the bare frame when it fits (nothing changes
    state, so a bare frame's lack of an idempotency identity costs nothing); chunk-group
    rules and answers are those of forward-backward. It runs on the training sub-job (current policy)
    or, with
    `reference_model: true`, on the job's `log_probability` sub-job (the frozen reference
    model). It does not replace or change the `forward` operation. The polled result is a
    DSSST1 `ForwardNoGradResult`.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        wait_s (float | Unset):
        body (File):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AcceptedRequest | ChunkAccepted | RequestStatus | Error
    """

    return sync_detailed(
        job_id=job_id,
        client=client,
        body=body,
        wait_s=wait_s,
    ).parsed


async def asyncio_detailed(
    job_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: File,
    wait_s: float | Unset = UNSET,
) -> Response[AcceptedRequest | ChunkAccepted | RequestStatus | Error]:
    """Forward pass without gradients (a frame, or one chunk of it; proposed)

     Sends a DSSST1 frame holding a `ForwardNoGradBatch`, as forward-backward does: a chunk
    envelope (operation `fwd-no-grad`) or the bare frame when it fits (nothing changes
    state, so a bare frame's lack of an idempotency identity costs nothing); chunk-group
    rules and answers are those of forward-backward. It runs on the training sub-job (current policy)
    or, with
    `reference_model: true`, on the job's `log_probability` sub-job (the frozen reference
    model). It does not replace or change the `forward` operation. The polled result is a
    DSSST1 `ForwardNoGradResult`.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        wait_s (float | Unset):
        body (File):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AcceptedRequest | ChunkAccepted | RequestStatus | Error]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        body=body,
        wait_s=wait_s,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    job_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: File,
    wait_s: float | Unset = UNSET,
) -> AcceptedRequest | ChunkAccepted | RequestStatus | Error | None:
    """Forward pass without gradients (a frame, or one chunk of it; proposed)

     Sends a DSSST1 frame holding a `ForwardNoGradBatch`, as forward-backward does: a chunk
    envelope (operation `fwd-no-grad`) or the bare frame when it fits (nothing changes
    state, so a bare frame's lack of an idempotency identity costs nothing); chunk-group
    rules and answers are those of forward-backward. It runs on the training sub-job (current policy)
    or, with
    `reference_model: true`, on the job's `log_probability` sub-job (the frozen reference
    model). It does not replace or change the `forward` operation. The polled result is a
    DSSST1 `ForwardNoGradResult`.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        wait_s (float | Unset):
        body (File):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AcceptedRequest | ChunkAccepted | RequestStatus | Error
    """

    return (
        await asyncio_detailed(
            job_id=job_id,
            client=client,
            body=body,
            wait_s=wait_s,
        )
    ).parsed
