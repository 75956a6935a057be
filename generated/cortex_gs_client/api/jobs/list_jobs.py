# generated from openapi/cortex_gs.yaml by make generate; do not edit
from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.error import Error
from ...models.job_list import JobList
from ...models.job_state import JobState
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    status: JobState | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_status: str | Unset = UNSET
    if not isinstance(status, Unset):
        json_status = status.value

    params["status"] = json_status

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Error | JobList | None:
    if response.status_code == 200:
        response_200 = JobList.from_dict(response.json())

        return response_200

    if response.status_code == 400:
        response_400 = Error.from_dict(response.json())

        return response_400

    if response.status_code == 401:
        response_401 = Error.from_dict(response.json())

        return response_401

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
) -> Response[Error | JobList]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient | Client,
    status: JobState | Unset = UNSET,
) -> Response[Error | JobList]:
    """List jobs

     Lists the caller's jobs, optionally filtered by state. Entries are proto3 JSON: only
    `job_id` and `status` are always there (the published example has just those and
    `sub_jobs`).

    Args:
        status (JobState | Unset): A job's customer-facing state. `cancelled`, `terminated` and
            `failed` are terminal;
            `initializing` (placed, warming up) is neither running nor terminal. Legacy or internal
            answers can also hold `done`, `unknown` or enum names such as `JOB_STATE_RUNNING`;
            clients lowercase and drop the `JOB_STATE_` prefix.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | JobList]
    """

    kwargs = _get_kwargs(
        status=status,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient | Client,
    status: JobState | Unset = UNSET,
) -> Error | JobList | None:
    """List jobs

     Lists the caller's jobs, optionally filtered by state. Entries are proto3 JSON: only
    `job_id` and `status` are always there (the published example has just those and
    `sub_jobs`).

    Args:
        status (JobState | Unset): A job's customer-facing state. `cancelled`, `terminated` and
            `failed` are terminal;
            `initializing` (placed, warming up) is neither running nor terminal. Legacy or internal
            answers can also hold `done`, `unknown` or enum names such as `JOB_STATE_RUNNING`;
            clients lowercase and drop the `JOB_STATE_` prefix.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | JobList
    """

    return sync_detailed(
        client=client,
        status=status,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient | Client,
    status: JobState | Unset = UNSET,
) -> Response[Error | JobList]:
    """List jobs

     Lists the caller's jobs, optionally filtered by state. Entries are proto3 JSON: only
    `job_id` and `status` are always there (the published example has just those and
    `sub_jobs`).

    Args:
        status (JobState | Unset): A job's customer-facing state. `cancelled`, `terminated` and
            `failed` are terminal;
            `initializing` (placed, warming up) is neither running nor terminal. Legacy or internal
            answers can also hold `done`, `unknown` or enum names such as `JOB_STATE_RUNNING`;
            clients lowercase and drop the `JOB_STATE_` prefix.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Error | JobList]
    """

    kwargs = _get_kwargs(
        status=status,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient | Client,
    status: JobState | Unset = UNSET,
) -> Error | JobList | None:
    """List jobs

     Lists the caller's jobs, optionally filtered by state. Entries are proto3 JSON: only
    `job_id` and `status` are always there (the published example has just those and
    `sub_jobs`).

    Args:
        status (JobState | Unset): A job's customer-facing state. `cancelled`, `terminated` and
            `failed` are terminal;
            `initializing` (placed, warming up) is neither running nor terminal. Legacy or internal
            answers can also hold `done`, `unknown` or enum names such as `JOB_STATE_RUNNING`;
            clients lowercase and drop the `JOB_STATE_` prefix.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Error | JobList
    """

    return (
        await asyncio_detailed(
            client=client,
            status=status,
        )
    ).parsed
