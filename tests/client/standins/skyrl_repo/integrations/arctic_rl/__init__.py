"""Replay of SkyRL's `integrations/arctic_rl` (pinned a9564572e): the calls, not the code."""
