"""Replay of `verl.remote_backend`: the registry and the worker's slicing rule."""
