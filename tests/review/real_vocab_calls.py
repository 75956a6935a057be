"""A recipe's calls with a real tokenizer's ids, run by a user's Python against the mock.

    python real_vocab_calls.py skyrl|verl CORTEX_SETTINGS_JSON

Ids lie in the top of a 151,646-id vocabulary (Qwen2.5's; no tokenizer is loaded: the
calls carry ids only) and each sequence is 4,096 tokens long; the Cortex settings are
the guide's, as JSON. ``skyrl`` sends SkyRL's
shapes (whole-sequence [B, T] loss mask and advantages), each call on a fresh event loop
that is never closed, as SkyRL's trainer does; ``verl`` sends verl's (``responses`` and
response-wide tensors, the loss config in ``meta``) from a plain thread with
``asyncio.run`` per call. Both take log-probs, train one step and sample from token-id
prompts; one JSON line reports what came back.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections.abc import Callable, Coroutine
from typing import Any

import torch

from arctic_rl import ArcticRLClientConfig, create_arctic_rl_client

VOCAB = 151_646
LOWEST = 150_000
ROWS, PROMPT, RESPONSE = 2, 3_072, 1_024
WIDTH = PROMPT + RESPONSE
# Per-row advantages: with old log-probs equal to the policy's, the loss is minus their
# mean over response tokens (-0.75), whatever the layout, if each lines up.
ADVANTAGES = torch.tensor([[1.0], [0.5]])
# The loss both frameworks' integrations name (today's service takes no call without one).
PROCESSING = {"loss_fn": "verl_grpo"}


def skyrl_call(coro: Coroutine[Any, Any, Any]) -> Any:
    return asyncio.new_event_loop().run_until_complete(coro)


def verl_call(coro: Coroutine[Any, Any, Any]) -> Any:
    answer: list[Any] = []
    worker = threading.Thread(target=lambda: answer.append(asyncio.run(coro)))
    worker.start()
    worker.join()
    return answer[0]


def batches() -> tuple[dict[str, torch.Tensor], dict[str, torch.Tensor]]:
    """(SkyRL's batch, verl's batch) over the same left-padded prompts and responses."""
    ids = torch.randint(LOWEST, VOCAB, (ROWS, WIDTH), generator=torch.Generator().manual_seed(0))
    attention = torch.ones_like(ids)
    attention[1, :100] = 0  # the second prompt is shorter: left padding
    ids[1, :100] = 0
    in_response = torch.zeros_like(ids)
    in_response[:, PROMPT:] = 1
    skyrl = {
        "input_ids": ids,
        "attention_mask": attention,
        "loss_mask": in_response,
        "advantages": in_response * ADVANTAGES,
    }
    verl = {
        "input_ids": ids,
        "attention_mask": attention,
        "position_ids": (attention.cumsum(-1) - 1).clamp(min=0),
        "responses": ids[:, PROMPT:],
        "response_mask": in_response[:, PROMPT:],
        "advantages": ADVANTAGES.expand(ROWS, RESPONSE).contiguous(),
    }
    return skyrl, verl


def main(shape: str, cortex: dict[str, Any]) -> None:
    call: Callable[[Coroutine[Any, Any, Any]], Any] = skyrl_call if shape == "skyrl" else verl_call
    config = ArcticRLClientConfig(
        backend="cortex",
        model_name="Qwen/Qwen2.5-0.5B-Instruct",
        cortex={**cortex, "progress": False},
    )
    client = create_arctic_rl_client(config)
    batch = dict(zip(("skyrl", "verl"), batches(), strict=True))[shape]
    old = call(client.fwd_no_grad(batch))["batch"]["logprobs"]
    # The response tokens' log-probs, token-aligned (the answer's column i scores token i + 1).
    batch["old_log_probs"] = old[:, PROMPT - 1 : WIDTH - 1]
    meta = {"policy_loss_config": {"loss_agg_mode": "token-mean"}} if shape == "verl" else None
    legacy = {"meta": meta} if meta else {}
    trained = call(client.fwd_bwd(batch, PROCESSING, **legacy))
    stepped = call(client.step())
    prompts = [row[row > 0][-16:].tolist() for row in batch["input_ids"]]
    sampled = call(client.generate(prompts, {"max_tokens": 4, "temperature": 1.0}))
    client.shutdown()
    print(
        json.dumps(
            {
                "old_log_probs": [float(old[:, PROMPT - 1 : WIDTH - 1].min()), float(old.max())],
                "loss": trained["loss"],
                "global_steps": stepped["global_steps"],
                "sampled": [r["token_ids"] for r in sampled],
            }
        )
    )


if __name__ == "__main__":
    main(sys.argv[1], json.loads(sys.argv[2]))
