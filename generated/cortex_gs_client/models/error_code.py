# generated from openapi/cortex_gs.yaml by make generate; do not edit
from enum import StrEnum


class ErrorCode(StrEnum):
    BAD_DTYPE = "bad_dtype"
    BAD_HEADER = "bad_header"
    BAD_JSON = "bad_json"
    BAD_STRUCTURE = "bad_structure"
    BAD_VALUE = "bad_value"
    BAD_VERSION = "bad_version"
    CHECKPOINT_NOT_FOUND = "checkpoint_not_found"
    CHUNK_GROUP_CONFLICT = "chunk_group_conflict"
    CHUNK_GROUP_MISSING_CHUNKS = "chunk_group_missing_chunks"
    CHUNK_GROUP_RESTART_REQUIRED = "chunk_group_restart_required"
    CHUNK_MISMATCH = "chunk_mismatch"
    DUPLICATE_CHUNK = "duplicate_chunk"
    HASH_MISMATCH = "hash_mismatch"
    IDEMPOTENCY_KEY_CONFLICT = "idempotency_key_conflict"
    INTERNAL_ERROR = "internal_error"
    INVALID_STATE = "invalid_state"
    JOB_NOT_FOUND = "job_not_found"
    JOB_NOT_RUNNING = "job_not_running"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    MISSING_CHUNKS = "missing_chunks"
    NOT_FOUND = "not_found"
    NOT_IMPLEMENTED = "not_implemented"
    PAYLOAD_TOO_LARGE = "payload_too_large"
    PICKLE_REFUSED = "pickle_refused"
    RATE_LIMITED = "rate_limited"
    REQUEST_NOT_FOUND = "request_not_found"
    SIZE_MISMATCH = "size_mismatch"
    TOO_DEEP = "too_deep"
    TOO_LARGE = "too_large"
    TOO_MANY_TENSORS = "too_many_tensors"
    TRUNCATED = "truncated"
    UNAUTHORIZED = "unauthorized"
    UNAVAILABLE = "unavailable"
    VALIDATION_ERROR = "validation_error"

    def __str__(self) -> str:
        return str(self.value)
