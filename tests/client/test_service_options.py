"""The service's settings: each default stated once (`ServiceOptions`), and a config's
settings reaching the service whole, each by its own name."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from dataclasses import asdict, fields
from typing import Any

import yaml

from arctic_rl import CortexConfig, CortexService, PollSettings, ServiceOptions
from arctic_rl._options import POLL_PREFIX
from arctic_rl._service_setup import cortex_service
from arctic_rl.integrations.verl import GROUP_FILE

URL = "http://127.0.0.1:9/api/v2/databases/DB/schemas/S/cortex-training"
PAT_ENV = "ARCTIC_OPTIONS_TEST_PAT"
ENVIRON = {PAT_ENV: "options-test-token"}
# CortexConfig's fields that are not the service's options: where the service is, whose
# token, which job; `pat_env` and `service` reach the service as its token's variable
# and whether it serves Idempotency-Key (checked below).
NOT_OPTIONS = {
    "base_url",
    "host",
    "scheme",
    "database",
    "schema_",
    "endpoint",
    "pat_env",
    "job_id",
    "experiment_name",
    "cancel_on_shutdown",
    "service",
}


def shifted(value: Any) -> Any:
    """A valid value other than ``value`` (every option's constraints allow it)."""
    if isinstance(value, bool):
        return not value
    return value * 2 + 1


def config_names() -> dict[str, Any]:
    """Each option's CortexConfig field name -> its default, as `ServiceOptions` states it."""
    defaults = ServiceOptions()
    named = {f.name: getattr(defaults, f.name) for f in fields(defaults) if f.name != "poll"}
    poll = {POLL_PREFIX + f.name: getattr(defaults.poll, f.name) for f in fields(PollSettings)}
    return {**named, **poll}


def test_every_config_field_is_an_option_or_named_as_not_one() -> None:
    assert set(CortexConfig.model_fields) == set(config_names()) | NOT_OPTIONS


def test_a_default_config_opens_the_service_a_bare_service_has() -> None:
    config = CortexConfig(base_url=URL, pat_env=PAT_ENV)
    assert {name: getattr(config, name) for name in config_names()} == config_names()
    from_config = cortex_service(config, ENVIRON)
    bare = CortexService(URL, "options-test-token")
    assert from_config.options == bare.options == ServiceOptions()
    assert from_config._settings.options == bare._settings.options == ServiceOptions()


def test_each_setting_of_a_config_reaches_the_service_by_name() -> None:
    """Every option set to a value other than its default arrives where it is used."""
    wanted = {name: shifted(default) for name, default in config_names().items()}
    config = CortexConfig(base_url=URL, pat_env=PAT_ENV, service="proposed", **wanted)
    service = cortex_service(config, ENVIRON)
    options = asdict(service.options)
    poll = options.pop("poll")
    arrived = {**options, **{POLL_PREFIX + name: value for name, value in poll.items()}}
    assert arrived == wanted
    assert service._settings.options == service.options  # the transport's
    assert service._settings.token_env == PAT_ENV  # named when the token is refused
    assert service.traits.served_idempotency is True
    assert service.polls.settings == service.options.poll
    assert service._uploader().chunk_bytes == wanted["chunk_bytes"]
    assert service._progress.min_bytes == wanted["progress_min_bytes"]
    http = service._client.get_async_httpx_client()
    assert (http.timeout.connect, http.timeout.read) == (
        wanted["connect_timeout"],
        wanted["read_timeout"],
    )
    transport = http._transport
    assert (transport._max_retries, transport._retry_timeout, transport._max_answer_bytes) == (
        wanted["max_retries"],
        wanted["retry_timeout"],
        wanted["max_answer_bytes"],
    )
    asyncio.run(service.aclose())


# Run in a fresh interpreter: the options' defaults are changed before any other SDK
# module is imported, as an edit of `ServiceOptions` would change them.
CHANGED_DEFAULTS = """
import dataclasses, json, sys
import arctic_rl._options as options

def shifted(value):
    return (not value) if isinstance(value, bool) else value * 2 + 1

def with_defaults(cls, defaults):
    spec = [(f.name, f.type, dataclasses.field(**defaults(f))) for f in dataclasses.fields(cls)]
    return dataclasses.make_dataclass(cls.__name__, spec, frozen=True)

options.PollSettings = with_defaults(
    options.PollSettings, lambda f: {"default": shifted(f.default)}
)
options.ServiceOptions = with_defaults(
    options.ServiceOptions,
    lambda f: {"default_factory": options.PollSettings}
    if f.name == "poll"
    else {"default": shifted(f.default)},
)

from arctic_rl import CortexConfig, CortexService
from pydantic import SecretStr
from arctic_rl._endpoint import ClientSettings
from arctic_rl._polling import PollPlanner
from arctic_rl._service_setup import cortex_service

url, pat_env = sys.argv[1], sys.argv[2]
config = CortexConfig(base_url=url, pat_env=pat_env)
seen = {
    "config": dataclasses.asdict(config.service_options()),
    "service from the config": dataclasses.asdict(
        cortex_service(config, {pat_env: "t"}).options
    ),
    "bare service": dataclasses.asdict(CortexService(url, "t").options),
    "transport": dataclasses.asdict(ClientSettings(url, SecretStr("t")).options),
    "poll planner": {"poll": dataclasses.asdict(PollPlanner().settings)},
}
print(json.dumps(seen))
"""


def test_changing_a_default_in_its_one_place_changes_it_everywhere() -> None:
    """A default restated anywhere (the config's fields, the service, its transport or
    its poll planner) keeps its old value here and fails the comparison."""
    defaults = asdict(ServiceOptions())
    changed = {name: shifted(value) for name, value in defaults.items() if name != "poll"}
    changed["poll"] = {name: shifted(value) for name, value in defaults["poll"].items()}
    done = subprocess.run(
        [sys.executable, "-c", CHANGED_DEFAULTS, URL, PAT_ENV],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    seen = json.loads(done.stdout)
    assert set(seen) == {
        "config",
        "service from the config",
        "bare service",
        "transport",
        "poll planner",
    }
    for where, options in seen.items():
        expected = changed if where != "poll planner" else {"poll": changed["poll"]}
        assert options == expected, where


def test_the_verl_group_file_restates_no_default() -> None:
    """Its `cortex:` block lists the settings a command line may set, each null (the
    SDK's default, or the environment's): a value there would hide both."""
    block = yaml.safe_load(GROUP_FILE.read_text(encoding="utf-8"))["cortex"]
    names = {f.alias or name for name, f in CortexConfig.model_fields.items()}
    assert set(block) <= names
    assert {key: value for key, value in block.items() if value is not None} == {}
