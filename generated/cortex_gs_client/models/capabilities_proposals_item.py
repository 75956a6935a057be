# generated from openapi/cortex_gs.yaml by make generate; do not edit
from enum import StrEnum


class CapabilitiesProposalsItem(StrEnum):
    APPLY_TEMPERATURE = "apply_temperature"
    COMPUTE_ENTROPY_AND_LOGPROBS = "compute_entropy_and_logprobs"
    COST_BUDGETS = "cost_budgets"
    FORWARD_NO_GRAD = "forward_no_grad"
    IDEMPOTENCY_KEY = "idempotency_key"
    LOG_PROBS = "log_probs"
    SAMPLING_N = "sampling_n"
    SYNC_WEIGHTS = "sync_weights"
    TRAIN_BATCH = "train_batch"
    TRAIN_METRICS = "train_metrics"
    VERL_GRPO = "verl_grpo"
    WAIT_S = "wait_s"

    def __str__(self) -> str:
        return str(self.value)
