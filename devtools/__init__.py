"""Test and development support: one home, outside the product packages (not in the wheel).

- ``mock_process``: start ``python -m arctic_rl_mock`` in its own process (ports, readiness).
- ``live_mock``: run the mock inside the calling process (``LiveMock``, ``MockApi``).
- ``mock_hooks``: crash points, departures and storage faults armed into a mock's app.
- ``faults``: the fault-injecting HTTP proxy.
- ``batches``: batch builders shared by tests, examples and benchmarks.
"""
