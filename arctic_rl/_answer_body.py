"""Reading an answer's body: decompressed under a cap, within its deadline, and judged.

A gzip bomb is an `AnswerTooLargeError`, never a 600 MiB allocation; a success whose body
is not JSON is an `UnexpectedAnswerError`; an error status becomes its typed error from
the status alone when the body cannot be parsed (not JSON, nested too deep, an integer
too long): the service transport (`_http`) decides retries on the status, never on this.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

import httpx
from cortex_gs_contract import REQUEST_ID_HEADER

from arctic_rl._error_answers import error_from_response
from arctic_rl._errors import AnswerTooLargeError, UnexpectedAnswerError
from arctic_rl._retry import AnswerDeadline

__all__ = ["ACCEPT_ENCODING", "read_capped", "require_json", "status_error"]

# The encodings this client can decompress under a cap; it asks for no others.
ACCEPT_ENCODING = "gzip, deflate"
_DECODERS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS, "deflate": zlib.MAX_WBITS}


async def read_capped(response: httpx.Response, cap: int, deadline: AnswerDeadline) -> bytes:
    """The whole answer, decompressed, never holding more than ``cap`` + 1 bytes of it."""
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    if response.is_stream_consumed:  # built whole in memory (a test's transport): decoded
        if len(response.content) > cap:
            raise _too_large(response, cap)
        return response.content
    decoder = None
    if encoding not in ("", "identity"):
        wbits = _DECODERS.get(encoding)
        if wbits is None:
            message = f"the answer is {encoding}-encoded; this client asked for {ACCEPT_ENCODING}"
            raise _answer_error(UnexpectedAnswerError, response, "unsupported_encoding", message)
        decoder = zlib.decompressobj(wbits)
    body = bytearray()
    async for raw in response.aiter_raw():
        deadline.moved(len(raw))
        if decoder is None:
            body += raw
        else:
            try:
                body += decoder.decompress(raw, cap + 1 - len(body))
            except zlib.error as exc:
                message = f"the {encoding} answer does not decompress: {exc}"
                raise _answer_error(
                    UnexpectedAnswerError, response, "bad_encoding", message
                ) from exc
            if decoder.unconsumed_tail:  # more output pending: past the cap whatever its size
                raise _too_large(response, cap)
        if len(body) > cap:
            raise _too_large(response, cap)
    return bytes(body)


def _answer_error(
    cls: type[UnexpectedAnswerError], response: httpx.Response, code: str, message: str
) -> UnexpectedAnswerError:
    """An answer outside what the contract allows, with its status and request id."""
    return cls(
        message,
        status=response.status_code,
        code=code,
        request_id=response.headers.get(REQUEST_ID_HEADER),
    )


def _too_large(response: httpx.Response, cap: int) -> UnexpectedAnswerError:
    message = (
        f"the answer is larger than {cap} bytes once decompressed "
        f"(cortex.max_answer_bytes); refusing it"
    )
    return _answer_error(AnswerTooLargeError, response, "answer_too_large", message)


def require_json(answer: httpx.Response) -> None:
    """A success with a body carries JSON (a login page or proxy banner is not an answer)."""
    content = answer.content
    if not content.strip():
        return
    content_type = answer.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if content_type == "application/json" or content_type.endswith("+json"):
        return
    try:
        json.loads(content)
    except (ValueError, RecursionError):  # not JSON, too deep, or an integer too long
        message = (
            f"the service answered HTTP {answer.status_code} with {content_type or 'no type'}, "
            f"not JSON: {content[:120]!r}"
        )
        raise _answer_error(UnexpectedAnswerError, answer, "not_json", message) from None


def status_error(response: httpx.Response) -> Exception:
    """The typed error of an error status; a body that does not parse is kept as text."""
    try:
        body: Any = response.json()
    except (ValueError, RecursionError):  # not JSON, too deep, or an integer too long
        body = response.text
    return error_from_response(response.status_code, body, response.headers)
