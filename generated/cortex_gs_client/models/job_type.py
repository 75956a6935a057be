# generated from openapi/cortex_gs.yaml by make generate; do not edit
from enum import StrEnum


class JobType(StrEnum):
    LOG_PROBABILITY = "log_probability"
    SAMPLING = "sampling"
    TRAINING = "training"

    def __str__(self) -> str:
        return str(self.value)
