"""The server team's kit: run the Cortex GS contract's checks against any endpoint.

``cortex-gs-contract-check`` (``make contract-check``) points schemathesis, the project's
DSSST1 strategies and checks, and the project's own client at a service and writes a
report a person reads (Markdown and JUnit). See :mod:`arctic_rl_kit.cli`.
"""
