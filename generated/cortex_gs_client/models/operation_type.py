# generated from openapi/cortex_gs.yaml by make generate; do not edit
from enum import StrEnum


class OperationType(StrEnum):
    CANCEL_REQUEST = "cancel-request"
    FORWARD = "forward"
    RESET_PREFIX_CACHE = "reset-prefix-cache"
    SLEEP = "sleep"
    TAIL_LOGS = "tail-logs"
    WAKE_UP = "wake-up"
    WEIGHT_SYNC = "weight-sync"

    def __str__(self) -> str:
        return str(self.value)
