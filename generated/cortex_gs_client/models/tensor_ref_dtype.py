# generated from openapi/cortex_gs.yaml by make generate; do not edit
from enum import StrEnum


class TensorRefDtype(StrEnum):
    BF16 = "BF16"
    BOOL = "BOOL"
    F16 = "F16"
    F32 = "F32"
    F64 = "F64"
    I16 = "I16"
    I32 = "I32"
    I64 = "I64"
    I8 = "I8"
    U8 = "U8"

    def __str__(self) -> str:
        return str(self.value)
