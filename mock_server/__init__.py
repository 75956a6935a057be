"""Mock Cortex GS: the executable reference of ``openapi/cortex_gs.yaml``.

Start it with ``python -m mock_server --port 8765 --token T --backend canned|reference
--state-dir DIR`` (or ``make serve``); clients use the base URL it logs,
``http://HOST:PORT/api/v2/databases/RL_DB/schemas/PUBLIC/cortex-training`` -- or any other
database and schema: all are served. It answers in today's service's shapes, and the
contract's proposals work too. The published ``arctic-platform`` client's ``base_url``
path sends no token: start the mock with ``--no-auth`` for it.

Layout (one concern per module):
- ``app``: FastAPI routes on the generated pydantic models, auth, body cap, request ids,
  any database and schema.
- ``service``: job lifecycle, chunk-group rules, idempotency, polling, the worker thread.
- ``operations``: today's ``/operation`` envelope (routing hints, payloads, inline answers).
- ``bodies``: open request bodies (what is ignored is logged at debug).
- ``exports``: signed, short-lived download links of checkpoint exports.
- ``errors``: today's error shapes for every failure.
- ``store``: SQLite + files under ``--state-dir`` (survives restarts).
- ``backends``: ``canned`` (instant, shape-correct) and ``reference`` (a tiny torch LM
  that really trains); routes never see torch.
- ``openapi``: the app's own OpenAPI, shaped for comparison with the contract.
- ``testing``: ``LiveMock``/``MockApi`` for tests (see ``tests/conftest.py``).
"""
