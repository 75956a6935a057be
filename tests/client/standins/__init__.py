"""Replays of SkyRL's and verl's Arctic integration code (pinned sources named in each
file): the calls, payload shapes and keys they really send and read, run in subprocesses
as the frameworks run them. `batches.py` holds shared SkyRL-shaped test tensors."""
