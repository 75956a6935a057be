# generated from openapi/cortex_gs.yaml by make generate; do not edit
from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.accepted_request import AcceptedRequest
from ...models.error import Error
from ...models.request_status import RequestStatus
from ...models.save_request import SaveRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    job_id: str,
    *,
    body: SaveRequest,
    wait_s: float | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    params: dict[str, Any] = {}

    params["wait_s"] = wait_s

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/{job_id}/save".format(
            job_id=quote(str(job_id), safe=""),
        ),
        "params": params,
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AcceptedRequest | Error | RequestStatus | None:
    if response.status_code == 200:
        response_200 = RequestStatus.from_dict(response.json())

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
) -> Response[AcceptedRequest | Error | RequestStatus]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    job_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: SaveRequest,
    wait_s: float | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[AcceptedRequest | Error | RequestStatus]:
    """Save a checkpoint

     Saves the training sub-job's state (`resumable` unless `checkpoint_type` says
    otherwise). The service names the checkpoint: a caller's `checkpoint_id` is accepted
    but not forwarded, so use the `checkpoint_id` of the polled result. Fields the service
    does not use (`export_hf`, `path`, `step`, `save_total_limit`, `stage_info`, which
    today's client sends) are accepted and ignored. The polled result is a JSON
    `SaveResult`.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        wait_s (float | Unset):
        idempotency_key (str | Unset):
        body (SaveRequest): The body of `save_checkpoint`; open: fields the service does not use
            are accepted and
            ignored. `{}` saves a resumable checkpoint named after the step.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AcceptedRequest | Error | RequestStatus]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        body=body,
        wait_s=wait_s,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    job_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: SaveRequest,
    wait_s: float | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> AcceptedRequest | Error | RequestStatus | None:
    """Save a checkpoint

     Saves the training sub-job's state (`resumable` unless `checkpoint_type` says
    otherwise). The service names the checkpoint: a caller's `checkpoint_id` is accepted
    but not forwarded, so use the `checkpoint_id` of the polled result. Fields the service
    does not use (`export_hf`, `path`, `step`, `save_total_limit`, `stage_info`, which
    today's client sends) are accepted and ignored. The polled result is a JSON
    `SaveResult`.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        wait_s (float | Unset):
        idempotency_key (str | Unset):
        body (SaveRequest): The body of `save_checkpoint`; open: fields the service does not use
            are accepted and
            ignored. `{}` saves a resumable checkpoint named after the step.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AcceptedRequest | Error | RequestStatus
    """

    return sync_detailed(
        job_id=job_id,
        client=client,
        body=body,
        wait_s=wait_s,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    job_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: SaveRequest,
    wait_s: float | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> Response[AcceptedRequest | Error | RequestStatus]:
    """Save a checkpoint

     Saves the training sub-job's state (`resumable` unless `checkpoint_type` says
    otherwise). The service names the checkpoint: a caller's `checkpoint_id` is accepted
    but not forwarded, so use the `checkpoint_id` of the polled result. Fields the service
    does not use (`export_hf`, `path`, `step`, `save_total_limit`, `stage_info`, which
    today's client sends) are accepted and ignored. The polled result is a JSON
    `SaveResult`.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        wait_s (float | Unset):
        idempotency_key (str | Unset):
        body (SaveRequest): The body of `save_checkpoint`; open: fields the service does not use
            are accepted and
            ignored. `{}` saves a resumable checkpoint named after the step.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AcceptedRequest | Error | RequestStatus]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        body=body,
        wait_s=wait_s,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    job_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: SaveRequest,
    wait_s: float | Unset = UNSET,
    idempotency_key: str | Unset = UNSET,
) -> AcceptedRequest | Error | RequestStatus | None:
    """Save a checkpoint

     Saves the training sub-job's state (`resumable` unless `checkpoint_type` says
    otherwise). The service names the checkpoint: a caller's `checkpoint_id` is accepted
    but not forwarded, so use the `checkpoint_id` of the polled result. Fields the service
    does not use (`export_hf`, `path`, `step`, `save_total_limit`, `stage_info`, which
    today's client sends) are accepted and ignored. The polled result is a JSON
    `SaveResult`.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        wait_s (float | Unset):
        idempotency_key (str | Unset):
        body (SaveRequest): The body of `save_checkpoint`; open: fields the service does not use
            are accepted and
            ignored. `{}` saves a resumable checkpoint named after the step.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AcceptedRequest | Error | RequestStatus
    """

    return (
        await asyncio_detailed(
            job_id=job_id,
            client=client,
            body=body,
            wait_s=wait_s,
            idempotency_key=idempotency_key,
        )
    ).parsed
