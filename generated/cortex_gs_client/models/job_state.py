# generated from openapi/cortex_gs.yaml by make generate; do not edit
from enum import StrEnum


class JobState(StrEnum):
    CANCELLED = "cancelled"
    FAILED = "failed"
    INITIALIZING = "initializing"
    PENDING = "pending"
    PLACING = "placing"
    RUNNING = "running"
    TERMINATED = "terminated"

    def __str__(self) -> str:
        return str(self.value)
