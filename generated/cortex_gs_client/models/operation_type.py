# generated from openapi/cortex_gs.yaml by make generate; do not edit
from enum import StrEnum


class OperationType(StrEnum):
    BOOTSTRAP_ROUTER_REPLAY = "bootstrap-router-replay"
    CANCEL_REQUEST = "cancel-request"
    FORWARD = "forward"
    RESET_PREFIX_CACHE = "reset-prefix-cache"
    ROUTER_REPLAY_DISCARD = "router-replay-discard"
    TAIL_LOGS = "tail-logs"
    WEIGHT_SYNC = "weight-sync"

    def __str__(self) -> str:
        return str(self.value)
