# generated from openapi/cortex_gs.yaml by make generate; do not edit
from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.create_job_request import CreateJobRequest
from ...models.create_job_response import CreateJobResponse
from ...models.error import Error
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: CreateJobRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> CreateJobResponse | Error | None:
    if response.status_code == 200:
        response_200 = CreateJobResponse.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

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
) -> Response[CreateJobResponse | Error]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: CreateJobRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[CreateJobResponse | Error]:
    """Create a job

     Creates a job with one sub-job per entry of `sub_job_configs` and answers its id. The job
    starts `pending` and moves through `placing` and `initializing` to `running`.
    Not safe to retry blindly: a retry after the server received the request creates a
    second job (clients retry only when the connection never reached the server).

    Args:
        idempotency_key (str | Unset):
        body (CreateJobRequest): The body of `create_job`; open (unknown fields are ignored, an
            internal `debug` block is gated by the server).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateJobResponse | Error]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    body: CreateJobRequest,
    idempotency_key: str | Unset = UNSET,
) -> CreateJobResponse | Error | None:
    """Create a job

     Creates a job with one sub-job per entry of `sub_job_configs` and answers its id. The job
    starts `pending` and moves through `placing` and `initializing` to `running`.
    Not safe to retry blindly: a retry after the server received the request creates a
    second job (clients retry only when the connection never reached the server).

    Args:
        idempotency_key (str | Unset):
        body (CreateJobRequest): The body of `create_job`; open (unknown fields are ignored, an
            internal `debug` block is gated by the server).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateJobResponse | Error
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    body: CreateJobRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[CreateJobResponse | Error]:
    """Create a job

     Creates a job with one sub-job per entry of `sub_job_configs` and answers its id. The job
    starts `pending` and moves through `placing` and `initializing` to `running`.
    Not safe to retry blindly: a retry after the server received the request creates a
    second job (clients retry only when the connection never reached the server).

    Args:
        idempotency_key (str | Unset):
        body (CreateJobRequest): The body of `create_job`; open (unknown fields are ignored, an
            internal `debug` block is gated by the server).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[CreateJobResponse | Error]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    body: CreateJobRequest,
    idempotency_key: str | Unset = UNSET,
) -> CreateJobResponse | Error | None:
    """Create a job

     Creates a job with one sub-job per entry of `sub_job_configs` and answers its id. The job
    starts `pending` and moves through `placing` and `initializing` to `running`.
    Not safe to retry blindly: a retry after the server received the request creates a
    second job (clients retry only when the connection never reached the server).

    Args:
        idempotency_key (str | Unset):
        body (CreateJobRequest): The body of `create_job`; open (unknown fields are ignored, an
            internal `debug` block is gated by the server).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        CreateJobResponse | Error
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
