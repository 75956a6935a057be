# generated from openapi/cortex_gs.yaml by make generate; do not edit
from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.accepted_request import AcceptedRequest
from ...models.error import Error
from ...models.operation_answer import OperationAnswer
from ...models.operation_request import OperationRequest
from ...types import UNSET, Response, Unset


def _get_kwargs(
    job_id: str,
    *,
    body: OperationRequest,
    idempotency_key: str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/{job_id}/operation".format(
            job_id=quote(str(job_id), safe=""),
        ),
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> AcceptedRequest | Error | OperationAnswer | None:
    if response.status_code == 200:
        response_200 = OperationAnswer.from_dict(response.json())

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
) -> Response[AcceptedRequest | Error | OperationAnswer]:
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
    body: OperationRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[AcceptedRequest | Error | OperationAnswer]:
    """Run a named operation

     Runs one of the operation types in `OperationType`. Answers are opaque: an answer that
    carries a `request_id` is polled like any data-plane request (`forward`, `weight-sync`;
    `bootstrap-router-replay` when a deployment schedules it); any other answer is the
    inline result itself (`bootstrap-router-replay`, `router-replay-discard`,
    `reset-prefix-cache`, `cancel-request` acknowledgements, and `tail-logs` pages
    `{entries, next_cursor, eof}`). Only `tail-logs` is allowed while the job is `placing`;
    the others need `running`.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        idempotency_key (str | Unset):
        body (OperationRequest): The body of `run_operation`. `operation_type` is required;
            `sub_job_id` and
            `sub_job_type` are optional routing hints that must agree when both are given. The
            payload depends on `operation_type` (stated as one `allOf` if/then/else chain; every
            payload is open): `forward` a `ForwardOperationPayload`, `weight-sync` a
            `WeightSyncPayload`,
            `bootstrap-router-replay` a `BootstrapRouterReplayPayload`, `router-replay-discard` a
            `RouterReplayDiscardPayload`, `reset-prefix-cache` a `ResetPrefixCachePayload`,
            `cancel-request` a `CancelRequestPayload`, `tail-logs` a `TailLogsPayload`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AcceptedRequest | Error | OperationAnswer]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        body=body,
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
    body: OperationRequest,
    idempotency_key: str | Unset = UNSET,
) -> AcceptedRequest | Error | OperationAnswer | None:
    """Run a named operation

     Runs one of the operation types in `OperationType`. Answers are opaque: an answer that
    carries a `request_id` is polled like any data-plane request (`forward`, `weight-sync`;
    `bootstrap-router-replay` when a deployment schedules it); any other answer is the
    inline result itself (`bootstrap-router-replay`, `router-replay-discard`,
    `reset-prefix-cache`, `cancel-request` acknowledgements, and `tail-logs` pages
    `{entries, next_cursor, eof}`). Only `tail-logs` is allowed while the job is `placing`;
    the others need `running`.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        idempotency_key (str | Unset):
        body (OperationRequest): The body of `run_operation`. `operation_type` is required;
            `sub_job_id` and
            `sub_job_type` are optional routing hints that must agree when both are given. The
            payload depends on `operation_type` (stated as one `allOf` if/then/else chain; every
            payload is open): `forward` a `ForwardOperationPayload`, `weight-sync` a
            `WeightSyncPayload`,
            `bootstrap-router-replay` a `BootstrapRouterReplayPayload`, `router-replay-discard` a
            `RouterReplayDiscardPayload`, `reset-prefix-cache` a `ResetPrefixCachePayload`,
            `cancel-request` a `CancelRequestPayload`, `tail-logs` a `TailLogsPayload`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AcceptedRequest | Error | OperationAnswer
    """

    return sync_detailed(
        job_id=job_id,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    job_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: OperationRequest,
    idempotency_key: str | Unset = UNSET,
) -> Response[AcceptedRequest | Error | OperationAnswer]:
    """Run a named operation

     Runs one of the operation types in `OperationType`. Answers are opaque: an answer that
    carries a `request_id` is polled like any data-plane request (`forward`, `weight-sync`;
    `bootstrap-router-replay` when a deployment schedules it); any other answer is the
    inline result itself (`bootstrap-router-replay`, `router-replay-discard`,
    `reset-prefix-cache`, `cancel-request` acknowledgements, and `tail-logs` pages
    `{entries, next_cursor, eof}`). Only `tail-logs` is allowed while the job is `placing`;
    the others need `running`.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        idempotency_key (str | Unset):
        body (OperationRequest): The body of `run_operation`. `operation_type` is required;
            `sub_job_id` and
            `sub_job_type` are optional routing hints that must agree when both are given. The
            payload depends on `operation_type` (stated as one `allOf` if/then/else chain; every
            payload is open): `forward` a `ForwardOperationPayload`, `weight-sync` a
            `WeightSyncPayload`,
            `bootstrap-router-replay` a `BootstrapRouterReplayPayload`, `router-replay-discard` a
            `RouterReplayDiscardPayload`, `reset-prefix-cache` a `ResetPrefixCachePayload`,
            `cancel-request` a `CancelRequestPayload`, `tail-logs` a `TailLogsPayload`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[AcceptedRequest | Error | OperationAnswer]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    job_id: str,
    *,
    client: AuthenticatedClient | Client,
    body: OperationRequest,
    idempotency_key: str | Unset = UNSET,
) -> AcceptedRequest | Error | OperationAnswer | None:
    """Run a named operation

     Runs one of the operation types in `OperationType`. Answers are opaque: an answer that
    carries a `request_id` is polled like any data-plane request (`forward`, `weight-sync`;
    `bootstrap-router-replay` when a deployment schedules it); any other answer is the
    inline result itself (`bootstrap-router-replay`, `router-replay-discard`,
    `reset-prefix-cache`, `cancel-request` acknowledgements, and `tail-logs` pages
    `{entries, next_cursor, eof}`). Only `tail-logs` is allowed while the job is `placing`;
    the others need `running`.

    Args:
        job_id (str): A job's id. Never contains `:` (sub-job ids and `:cancel` use it as a
            separator) and is never `capacity` (that route wins).
        idempotency_key (str | Unset):
        body (OperationRequest): The body of `run_operation`. `operation_type` is required;
            `sub_job_id` and
            `sub_job_type` are optional routing hints that must agree when both are given. The
            payload depends on `operation_type` (stated as one `allOf` if/then/else chain; every
            payload is open): `forward` a `ForwardOperationPayload`, `weight-sync` a
            `WeightSyncPayload`,
            `bootstrap-router-replay` a `BootstrapRouterReplayPayload`, `router-replay-discard` a
            `RouterReplayDiscardPayload`, `reset-prefix-cache` a `ResetPrefixCachePayload`,
            `cancel-request` a `CancelRequestPayload`, `tail-logs` a `TailLogsPayload`.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        AcceptedRequest | Error | OperationAnswer
    """

    return (
        await asyncio_detailed(
            job_id=job_id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
