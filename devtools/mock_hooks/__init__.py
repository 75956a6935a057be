"""Test support for the mock: never imported by the product unless a test asks for it.

- ``harness``: ``LiveMock`` / ``MockApi`` run and drive a real mock in a test process
  (see ``tests/conftest.py``).
- ``hooks``: the hooks of an app started with test hooks on (``--test-hooks``), armed
  from the variables below.
- ``crashpoints``: exit the process at a named commit boundary (crash tests), armed by
  ``$CORTEX_GS_MOCK_CRASH_AT``.
- ``departures``: deliberate departures from the contract (the kit's tests), armed by
  ``$CORTEX_GS_MOCK_DEPART``.
- ``storagefaults``: file writes that fail as on a full or failing disk, armed by
  ``$CORTEX_GS_MOCK_STORAGE_FAULT``.

They reach the product through :mod:`arctic_rl_mock.hooks` only, and only when the mock was
started with test hooks on: a variable alone arms nothing.
"""
