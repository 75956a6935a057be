"""Mock Cortex GS server."""
