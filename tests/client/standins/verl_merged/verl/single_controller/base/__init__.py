"""Replay of `verl.single_controller.base.Worker`: one rank (the single forwarder), and
the dispatch-collect registry its `init_model` fills."""

from __future__ import annotations


class Worker:
    def __init__(self) -> None:
        self.rank = 0
        self.collect_info: dict[str, tuple[int, bool]] = {}

    def _register_dispatch_collect_info(self, mesh_name: str, dp_rank: int, is_collect: bool):
        self.collect_info[mesh_name] = (dp_rank, is_collect)
