"""Mock Cortex GS: the executable reference of ``openapi/cortex_gs.yaml``.

Start it with ``python -m mock_server --port 8765 --token T --backend canned|reference
--state-dir DIR`` (or ``make serve``); clients use the base URL it logs,
``http://HOST:PORT/api/v2/databases/RL_DB/schemas/PUBLIC/cortex-training``.

Layout (one concern per module):
- ``app``: FastAPI routes on the generated pydantic models, auth, body cap, request ids.
- ``service``: job lifecycle, chunk-group rules, idempotency, polling, the worker thread.
- ``store``: SQLite + files under ``--state-dir`` (survives restarts).
- ``backends``: ``canned`` (instant, shape-correct) and ``reference`` (a tiny torch LM
  that really trains); routes never see torch.
- ``openapi``: the app's own OpenAPI, shaped for comparison with the contract.
- ``testing``: ``LiveMock``/``MockApi`` for tests (see ``tests/conftest.py``).
"""
