"""The token never reaches a proxy in clear.

A loopback target (an ``ssh -L`` tunnel to the service, the mock) is reached directly
whatever ``HTTP_PROXY``/``ALL_PROXY`` say; a plain http:// target through a plain http://
proxy off loopback is refused unless ``cortex.allow_insecure_proxy`` says so; and the
credentials a proxy URL carries are never shown.
"""

from __future__ import annotations

import asyncio
import logging

import pytest

from arctic_rl import ArcticRLError, ConfigError
from arctic_rl._cortex import CortexService
from arctic_rl._options import ServiceOptions
from devtools.live_mock import LiveMock

from .hostile import TOKEN, HostileServer, Request, whole

PROXY_VARIABLES = ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"]
PROXY_PASSWORD = "pr0xy-s3cret-pw"


@pytest.fixture(autouse=True)
def _no_proxy_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [*PROXY_VARIABLES, "HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy"]:
        monkeypatch.delenv(name, raising=False)


async def recording_proxy(request: Request, writer: asyncio.StreamWriter, n: int) -> bool:
    writer.write(whole(b"{}"))
    return True


@pytest.mark.parametrize("variable", PROXY_VARIABLES)
async def test_a_loopback_target_never_goes_through_a_proxy(
    variable: str, live_mock: LiveMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with HostileServer(recording_proxy) as proxy:
        monkeypatch.setenv(variable, proxy.base_url.split("/api")[0])
        service = CortexService(live_mock.base_url, live_mock.token)
        try:
            capacity = await service.get_capacity()
        finally:
            await service.aclose()
    assert capacity.to_dict()["available_gpus"] >= 0  # the mock's answer, not the proxy's
    assert proxy.requests == []  # the call above went out and came back without it


@pytest.mark.parametrize("variable", PROXY_VARIABLES)
def test_an_http_proxy_off_loopback_for_an_http_target_is_refused(
    variable: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv(variable, f"http://someone:{PROXY_PASSWORD}@proxy.corp.invalid:3128")
    with pytest.raises(ConfigError) as caught:
        CortexService("http://10.1.2.3:8765/api", TOKEN, ServiceOptions(allow_insecure_http=True))
    message = str(caught.value)
    assert "cortex.allow_insecure_proxy" in message
    assert "http://proxy.corp.invalid:3128" in message
    assert PROXY_PASSWORD not in message + caplog.text and "someone" not in message


def test_the_user_may_opt_in_to_a_trusted_http_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HTTP_PROXY", "http://proxy.corp.invalid:3128")
    service = CortexService(
        "http://10.1.2.3:8765/api",
        TOKEN,
        ServiceOptions(allow_insecure_http=True, allow_insecure_proxy=True),
    )
    assert service._settings.proxy == "http://proxy.corp.invalid:3128"


async def test_a_proxys_credentials_reach_no_error_or_log(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """An https target through a proxy that is not there: the failure names neither."""
    caplog.set_level(logging.DEBUG)
    monkeypatch.setenv("HTTPS_PROXY", f"http://someone:{PROXY_PASSWORD}@127.0.0.1:9")
    service = CortexService(
        "https://acct.snowflakecomputing.invalid/api",
        TOKEN,
        ServiceOptions(max_retries=2, retry_timeout=2),
    )
    assert service._settings.proxy is not None  # an https target takes its proxy
    try:
        with pytest.raises(ArcticRLError) as caught:
            await service.get_capacity()
    finally:
        await service.aclose()
    for text in (str(caught.value), repr(caught.value.__dict__), caplog.text):
        assert PROXY_PASSWORD not in text and TOKEN not in text


async def test_the_kits_preflight_never_sends_the_token_through_a_proxy_to_loopback(
    live_mock: LiveMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from arctic_rl_kit.contract import Contract
    from arctic_rl_kit.preflight import preflight
    from arctic_rl_kit.target import Target

    async with HostileServer(recording_proxy) as proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy.base_url.split("/api")[0])
        target = Target(live_mock.base_url, "KIT_PAT", live_mock.token)
        await asyncio.to_thread(preflight, target, Contract.load(with_proposals=False))
    assert proxy.requests == []
