# generated from openapi/cortex_gs.yaml by make generate; do not edit
from enum import StrEnum


class RequestState(StrEnum):
    CANCELED = "canceled"
    CANCELLED = "cancelled"
    COMPLETED = "completed"
    DONE = "done"
    FAILED = "failed"
    PENDING = "pending"
    RUNNING = "running"
    STREAMING = "streaming"
    SUCCEEDED = "succeeded"

    def __str__(self) -> str:
        return str(self.value)
