"""Mock Cortex GS: the executable reference of ``openapi/cortex_gs.yaml``.

Start it with ``python -m arctic_rl_mock --port 8765 --token T --backend canned|reference
--state-dir DIR`` (or ``make serve``); clients use the base URL it logs,
``http://HOST:PORT/api/v2/databases/RL_DB/schemas/PUBLIC/cortex-training`` -- or any other
database and schema: all are served. It answers in today's service's shapes, and the
contract's proposals work too. The published ``arctic-platform`` client's ``base_url``
path sends no token: start the mock with ``--no-auth`` for it.

Layout (one concern per module):
- ``app``: builds the app: service, middleware, error shapes, the routers.
- ``routing``: registers the handlers from the contract's generated table
  (``cortex_gs_contract.OPERATIONS``): paths, methods, status codes, models, bodies.
- ``routers``: the handlers, one module per contract tag; ``dependencies``: auth, the
  service, path ids and ``Idempotency-Key`` as FastAPI dependencies.
- ``middleware``: any database and schema, request ids, the body cap; ``server``: the
  HTTP server's limits (a small subclass of uvicorn's protocol, pinned).
- ``service``: job lifecycle and queuing requests; ``idempotency``: at most once under
  ``Idempotency-Key``; ``pages``: polls, long-polls and submit waits, woken by the
  worker; ``chunks`` / ``chunk_group``: the chunk-group rules; ``worker``: the thread
  that runs requests on a backend; ``dispatch``: what each request kind does there;
  ``results``: a result's wire form, built once; ``control``: what the control plane
  shows and the checks a model cannot express.
- ``operations``: today's ``/operation`` envelope (routing hints, payloads, inline answers).
- ``bodies``: open request bodies (what is ignored is logged at debug).
- ``exports``: signed, short-lived download links of checkpoint exports.
- ``errors``: today's error shapes for every failure.
- ``store``: SQLite + files under ``--state-dir``, split by concern (``db``, ``jobs``,
  ``requests``, ``groups``, ``files``); it survives restarts and crashes (what must
  change together is one transaction; start-up reconciles what a killed process left)
  and is only ever called from threads, never on the event loop.
- ``backends``: ``canned`` (instant, shape-correct) and ``reference`` (a tiny torch LM
  that really trains); handlers never see torch.
- ``openapi``: the app's own OpenAPI, shaped for comparison with the contract.
- ``seams``: each app's hooks (crash points, file writes), plain unless the mock was
  started with ``--test-hooks``.
- ``testsupport``: test-only (``harness``: ``LiveMock``/``MockApi``; ``hooks``;
  ``crashpoints``; ``departures``; ``storagefaults``), never imported by the product
  unless the mock was started with ``--test-hooks``.
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
