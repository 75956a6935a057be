"""Hooks that make a mock fail on purpose, for tests: armed from the environment.

A mock serves with them only when built by :func:`devtools.mock_hooks.armed.armed_app`:
``python -m devtools.mock_hooks`` (the mock's own options) in a process of its own, or
``LiveMock(test_hooks=True)`` in a test's process. The product never imports them: its
``python -m arctic_rl_mock`` ignores these variables.

- ``armed``: the hooks of one app, armed from the variables below, and ``armed_app``.
- ``crashpoints``: exit the process at a named commit boundary (crash tests), armed by
  ``$CORTEX_GS_MOCK_CRASH_AT``.
- ``departures``: deliberate departures from the contract (the kit's tests), armed by
  ``$CORTEX_GS_MOCK_DEPART``.
- ``storagefaults``: file writes that fail as on a full or failing disk, armed by
  ``$CORTEX_GS_MOCK_STORAGE_FAULT``.
"""

CRASH_ENV = "CORTEX_GS_MOCK_CRASH_AT"
DEPART_ENV = "CORTEX_GS_MOCK_DEPART"
STORAGE_FAULT_ENV = "CORTEX_GS_MOCK_STORAGE_FAULT"
HOOK_ENVS = (CRASH_ENV, DEPART_ENV, STORAGE_FAULT_ENV)

__all__ = ["CRASH_ENV", "DEPART_ENV", "HOOK_ENVS", "STORAGE_FAULT_ENV"]
