"""The reference backend's model and optimizer: a tiny causal LM and a plain AdamW.

The model takes any tokenizer's ids (``VOCAB_SIZE``, over half a million) and any
sequence length while staying a few hundred thousand parameters: an id is split into a
high and a low part (``id = high * LOW_IDS + low``); its embedding is the sum of one row
from each part's small table, and its next-token distribution is the product of two small
softmaxes, ``p(id) = p_high(high) * p_low(low)``, so every id is reachable and each
position scores ``HIGH_IDS + LOW_IDS`` logits, never ``VOCAB_SIZE``. Ids below
``LOW_IDS`` (bytes, end of sequence, the reserved ids) share high part 0, where the low
softmax alone is the byte-level model's whole distribution. Positions are sinusoidal (no
table, no length limit), and attention runs on each row's attended tokens alone with a
causal kernel, so memory grows linearly with the sequence.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from arctic_rl_mock.backends.common import BYTE_TOKENS, LOW_IDS, VOCAB_SIZE, JobSettings

HIGH_IDS = VOCAB_SIZE // LOW_IDS
# Reserved ids and every id from LOW_IDS up start nearly impossible, so an untrained model
# emits bytes, yet stay learnable.
RESERVED_BIAS = -15.0


@dataclass(frozen=True)
class TinyConfig:
    """Model size; defaults keep a forward on a [32, 64] batch in the low milliseconds."""

    d_model: int = 64
    n_layers: int = 2
    n_heads: int = 4


@dataclass(frozen=True)
class TokenScores:
    """Next-token logits in factored form, ``[..., HIGH_IDS]`` and ``[..., LOW_IDS]``: the
    logit of id ``h * LOW_IDS + l`` is ``high[..., h] + low[..., l]``."""

    high: torch.Tensor
    low: torch.Tensor

    def __getitem__(self, index: object) -> TokenScores:
        """Some positions (an index into the leading dimensions)."""
        return TokenScores(self.high[index], self.low[index])

    def log_softmax(self) -> TokenScores:
        """Normalized, in float32: the two parts are then log-probabilities that add up."""
        return TokenScores(self.high.float().log_softmax(-1), self.low.float().log_softmax(-1))

    def scaled(self, temperature: torch.Tensor) -> TokenScores:
        """Logits divided by a per-row temperature (a product stays a product)."""
        return TokenScores(self.high / temperature[:, None], self.low / temperature[:, None])

    def at(self, ids: torch.Tensor) -> torch.Tensor:
        """The logit (a log-probability once normalized) of each id, shaped like ``ids``."""
        high = self.high.gather(-1, (ids // LOW_IDS)[..., None]).squeeze(-1)
        return high + self.low.gather(-1, (ids % LOW_IDS)[..., None]).squeeze(-1)

    def entropy(self) -> torch.Tensor:
        """Exact entropy of normalized scores: the two parts' entropies add."""
        return sum(-(part.exp() * part).sum(-1) for part in (self.high, self.low))

    def dense(self) -> torch.Tensor:
        """All ``VOCAB_SIZE`` logits (2 MiB a position: single rows and small tests only)."""
        return (self.high[..., :, None] + self.low[..., None, :]).flatten(-2)

    def top_k(self, k: int) -> torch.Tensor:
        """The ``k`` most likely ids per position, best first: the k best of a sum lie
        among the sums of each part's k best."""
        high, high_ids = self.high.topk(min(k, HIGH_IDS), dim=-1)
        low, low_ids = self.low.topk(min(k, LOW_IDS), dim=-1)
        sums = (high[..., :, None] + low[..., None, :]).flatten(-2)
        ids = (high_ids[..., :, None] * LOW_IDS + low_ids[..., None, :]).flatten(-2)
        return ids.gather(-1, sums.topk(min(k, sums.shape[-1]), dim=-1).indices)

    def sample(self, generator: torch.Generator) -> torch.Tensor:
        """One id per row of [N, ...] scores: each part drawn from its own softmax."""
        parts = (self.high, self.low)
        high, low = (torch.multinomial(p.softmax(-1), 1, generator=generator) for p in parts)
        return (high * LOW_IDS + low).squeeze(-1)

    def argmax(self) -> torch.Tensor:
        """The most likely id: each part's own best."""
        return self.high.argmax(-1) * LOW_IDS + self.low.argmax(-1)


def shifted_logprobs(
    scores: TokenScores, targets: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """(logprobs, entropy), both [B, T-1]: column i is log p(targets[:, i]) at position i.

    ``targets`` is ``input_ids[:, 1:]`` unless the batch carries ``labels``.
    """
    logp = scores[:, :-1].log_softmax()
    return logp.at(targets), logp.entropy()


def _sinusoids(positions: torch.Tensor, width: int) -> torch.Tensor:
    """Fixed position encodings [..., width] for any position, however far."""
    freqs = torch.exp(
        torch.arange(0, width, 2, device=positions.device) * (-math.log(10_000.0) / width)
    )
    angles = positions.to(torch.float32)[..., None] * freqs
    return torch.cat([angles.sin(), angles.cos()], dim=-1)


class _Block(nn.Module):
    """Pre-norm transformer block over packed tokens."""

    def __init__(self, cfg: TinyConfig) -> None:
        super().__init__()
        self.n_heads = cfg.n_heads
        self.ln1 = nn.LayerNorm(cfg.d_model)
        self.qkv = nn.Linear(cfg.d_model, 3 * cfg.d_model)
        self.proj = nn.Linear(cfg.d_model, cfg.d_model)
        self.ln2 = nn.LayerNorm(cfg.d_model)
        self.mlp = nn.Sequential(
            nn.Linear(cfg.d_model, 4 * cfg.d_model),
            nn.GELU(),
            nn.Linear(4 * cfg.d_model, cfg.d_model),
        )

    def forward(self, x: torch.Tensor, lengths: list[int]) -> torch.Tensor:
        """``x`` [N, D] holds the rows' attended tokens one row after another; each row
        attends causally within itself (``lengths`` tokens each)."""
        tokens, dim = x.shape
        heads = self.qkv(self.ln1(x)).view(tokens, 3, self.n_heads, dim // self.n_heads)
        if len(set(lengths)) == 1:  # rows of one length (no padding): one batched call
            rows = [heads.view(len(lengths), -1, *heads.shape[1:])]
        else:
            rows = [row[None] for row in heads.split(lengths)]
        outs = []
        for group in rows:
            q, k, v = group.permute(2, 0, 3, 1, 4)  # each [rows, H, n, D/H]
            outs.append(F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2))
        att = torch.cat([out.reshape(-1, dim) for out in outs])
        x = x + self.proj(att)
        return x + self.mlp(self.ln2(x))


class TinyLM(nn.Module):
    """A GPT-style causal LM over the factored vocabulary (see the module docstring)."""

    def __init__(self, cfg: TinyConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.tok_low = nn.Embedding(LOW_IDS, cfg.d_model)
        self.tok_high = nn.Embedding(HIGH_IDS, cfg.d_model)
        self.blocks = nn.ModuleList(_Block(cfg) for _ in range(cfg.n_layers))
        self.norm = nn.LayerNorm(cfg.d_model)
        self.head_low = nn.Linear(cfg.d_model, LOW_IDS)
        self.head_high = nn.Linear(cfg.d_model, HIGH_IDS)
        with torch.no_grad():
            self.tok_high.weight.zero_()  # ids below LOW_IDS start as the byte-level model
            self.head_low.bias[BYTE_TOKENS + 1 :] = RESERVED_BIAS
            self.head_high.bias[1:] = RESERVED_BIAS

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        position_ids: torch.Tensor | None = None,
    ) -> TokenScores:
        """Scores [B, T, ...]; padded tokens are left out of attention, and a padded
        position predicts from no context (its hidden state is zero)."""
        if position_ids is None:
            position_ids = (attention_mask.cumsum(-1) - 1).clamp(min=0)
        kept = attention_mask.bool()
        ids = input_ids[kept]
        x = self.tok_low(ids % LOW_IDS) + self.tok_high(ids // LOW_IDS)
        x = x + _sinusoids(position_ids[kept], self.cfg.d_model)
        lengths = kept.sum(-1).tolist()
        for block in self.blocks:
            x = block(x, lengths)
        hidden = x.new_zeros(*input_ids.shape, self.cfg.d_model)
        hidden = hidden.masked_scatter(kept[..., None], x)
        hidden = self.norm(hidden)
        return TokenScores(self.head_high(hidden), self.head_low(hidden))


class AdamW:
    """Decoupled-weight-decay Adam over named parameters.

    Written out (a dozen lines) instead of ``torch.optim.AdamW`` because constructing a
    torch optimizer imports ``torch._dynamo``, which costs several seconds per process,
    far more than the whole tiny model; state is keyed by parameter name so checkpoints
    are plain safetensors.
    """

    def __init__(self, params: dict[str, nn.Parameter], settings: JobSettings) -> None:
        self.params = params
        self.lr = settings.lr
        self.betas = settings.betas
        self.eps = settings.eps
        self.weight_decay = settings.weight_decay
        self.steps = 0
        self.state: dict[str, dict[str, torch.Tensor]] = {}

    def zero_grad(self) -> None:
        """Drop accumulated gradients."""
        for param in self.params.values():
            param.grad = None

    def grad_norm(self) -> float:
        """Global L2 norm of the accumulated gradients."""
        grads = [p.grad.detach().float().norm() for p in self.params.values() if p.grad is not None]
        return float(torch.stack(grads).norm()) if grads else 0.0

    @torch.no_grad()
    def step(self, clip: float | None) -> float:
        """One update; returns the pre-clipping gradient norm."""
        norm = self.grad_norm()
        scale = clip / (norm + 1e-6) if clip and norm > clip else 1.0
        self.steps += 1
        beta1, beta2 = self.betas
        fix1, fix2 = 1 - beta1**self.steps, 1 - beta2**self.steps
        for name, param in self.params.items():
            if param.grad is None:
                continue
            grad = param.grad * scale
            state = self.state.setdefault(
                name, {"exp_avg": torch.zeros_like(param), "exp_avg_sq": torch.zeros_like(param)}
            )
            state["exp_avg"].mul_(beta1).add_(grad, alpha=1 - beta1)
            state["exp_avg_sq"].mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
            param.mul_(1 - self.lr * self.weight_decay)
            denom = (state["exp_avg_sq"] / fix2).sqrt_().add_(self.eps)
            param.addcdiv_(state["exp_avg"], denom, value=-self.lr / fix1)
        return norm

    def tensors(self) -> tuple[dict[str, torch.Tensor], dict[str, str]]:
        """State as safetensors tensors plus string metadata."""
        flat = {
            f"{name}.{key}": value.detach().cpu().contiguous()
            for name, fields in self.state.items()
            for key, value in fields.items()
        }
        meta = {"steps": str(self.steps), "lr": repr(self.lr)}
        return flat or {"__empty__": torch.zeros(1)}, meta

    def restore(self, flat: dict[str, torch.Tensor], meta: dict[str, str]) -> None:
        """Inverse of :meth:`tensors`."""
        self.state = {}
        for key, value in flat.items():
            if key == "__empty__":
                continue
            name, field_name = key.rsplit(".", 1)
            device = self.params[name].device
            self.state.setdefault(name, {})[field_name] = value.to(device)
        self.steps = int(meta.get("steps", 0))
        self.lr = float(meta.get("lr", self.lr))
