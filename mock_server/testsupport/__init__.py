"""Test support for the mock: never imported by the product unless a test asks for it.

- ``harness``: ``LiveMock`` / ``MockApi`` run and drive a real mock in a test process
  (see ``tests/conftest.py``).
- ``crashpoints``: exit the process at a named commit boundary (crash tests), armed by
  ``$CORTEX_GS_MOCK_CRASH_AT``.
- ``departures``: deliberate departures from the contract (the kit's tests), armed by
  ``$CORTEX_GS_MOCK_DEPART``.

The two switches reach the product through :mod:`mock_server.seams` only.
"""
