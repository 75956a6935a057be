"""Replay of the merged `verl.remote_backend` (release/v0.7.1): the registry only; the
generic worker left verl core (each adapter package ships its own)."""
