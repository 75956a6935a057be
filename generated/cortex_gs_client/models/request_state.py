# generated from openapi/cortex_gs.yaml by make generate; do not edit
from enum import StrEnum


class RequestState(StrEnum):
    CANCELLED = "cancelled"
    COMPLETED = "completed"
    FAILED = "failed"
    PENDING = "pending"
    RUNNING = "running"
    STREAMING = "streaming"

    def __str__(self) -> str:
        return str(self.value)
