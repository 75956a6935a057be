"""Mock Cortex GS: the executable reference of ``openapi/cortex_gs.yaml``.

Start it with ``python -m arctic_rl_mock --port 8765 --token T --backend canned|reference
--state-dir DIR`` (or ``make serve``); clients use the base URL it logs,
``http://HOST:PORT/api/v2/databases/RL_DB/schemas/PUBLIC/cortex-training`` -- or any other
database and schema: all are served. It answers in today's service's shapes, and the
contract's proposals work too. The published ``arctic-platform`` client's ``base_url``
path sends no token: start the mock with ``--no-auth`` for it.

Module map (every module; FastAPI's bigger-applications layout, one concern per module):

- ``__main__``: the CLI (``cortex-gs-mock``); ``guide``: what it prints at start.
- ``app``: builds the app: service, middleware, error shapes, the routes.
- ``settings``: the mock's runtime settings; ``dependencies``: auth, the service, path ids
  and ``Idempotency-Key`` as FastAPI dependencies; ``errors``: today's error shapes;
  ``today``: what today's live service refuses before any model call, and its shapes.
- ``hooks``: where an app writes its files and marks commit boundaries (plain unless the
  app was built with other hooks).
- ``routers``: the handlers, one module per contract tag (``jobs``, ``checkpoints``,
  ``training``, ``sampling``, ``operations``, ``requests``), ``files`` (export download
  links) and ``_common`` (what the handlers share).
- ``web``: the HTTP plumbing: ``routing`` (registers the handlers from the contract's
  generated table), ``middleware`` (any database and schema, request ids, the body cap),
  ``server`` (the HTTP server's limits, a small subclass of uvicorn's protocol),
  ``receiving`` (request bodies as they arrive), ``bodies`` (open request bodies; what is
  ignored is logged), ``disk_errors`` (a full or failing disk as answers), ``openapi``
  (the app's own OpenAPI, shaped for comparison with the contract).
- ``services``: the behaviour behind the routes: ``mock_service`` (job lifecycle,
  queuing requests), ``idempotency`` (at most once under ``Idempotency-Key``),
  ``keyed_locks`` (one lock per key), ``pages`` (polls, long-polls, submit waits),
  ``chunks`` / ``chunk_group`` (the chunk-group rules), ``worker`` (the thread that runs
  requests on a backend), ``dispatch`` (what each request kind does there), ``results``
  (a result's wire form, built once), ``control`` (the control plane's views and
  checks), ``envelope`` (today's ``/operation`` envelope), ``exports`` (signed download
  links), ``limits`` / ``budgets`` (the contract's request limits and cost budgets),
  ``retention`` (how long finished requests are kept), ``recovery`` (what a restart does
  with unfinished requests).
- ``store``: SQLite + files under ``--state-dir``: ``db``, ``jobs``, ``requests``,
  ``groups``, ``files``, ``idempotency_records``, ``pruning``; it survives restarts and
  crashes (what must change together is one transaction) and is only ever called from
  threads, never on the event loop.
- ``backends``: ``canned`` (instant, shape-correct) and ``reference`` (a tiny torch LM
  that really trains: ``tiny``, ``losses``, ``grpo`` (today's stock loss), ``sampling``,
  ``prompts``, ``job_state``: one job's models and counters), ``common`` (batch and config
  conventions), ``persist`` (a job's backend state on disk); handlers never see torch.

Test support (crash points, departures, failing disks, an in-process ``LiveMock``) lives
outside this package, in the checkout's ``devtools/``, and is not in the wheel.
"""

from importlib.util import find_spec

# What the `mock` extra brings and the mock cannot run without (httptools: server.py's
# protocol). Looked up, not imported: importing a light submodule stays cheap.
_EXTRA_MODULES = ("fastapi", "uvicorn", "httptools")
_missing = [name for name in _EXTRA_MODULES if find_spec(name) is None]
if _missing:
    raise ModuleNotFoundError(
        f"the mock Cortex GS (arctic_rl_mock) needs the 'mock' extra, which is not installed "
        f"(missing: {', '.join(_missing)}); install it from the checkout or wheel this package "
        'came from: python -m pip install "/path/to/arctic-rl[mock]" (the checkout\'s folder, '
        "or the .whl file's path, then [mock])",
        name=_missing[0],
    )
