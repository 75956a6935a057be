"""Issue #11: exactly-once across crashes, state across restarts, bounded resources, auth first."""
