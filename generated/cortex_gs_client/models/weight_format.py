# generated from openapi/cortex_gs.yaml by make generate; do not edit
from enum import StrEnum


class WeightFormat(StrEnum):
    HF = "hf"
    LORA = "lora"
    VLLM = "vllm"

    def __str__(self) -> str:
        return str(self.value)
