"""The reference backend's model and optimizer: a tiny causal LM and a plain AdamW."""

from __future__ import annotations

from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn

from arctic_rl_mock.backends.common import BYTE_TOKENS, VOCAB_SIZE, JobSettings

# Reserved ids start nearly impossible so an untrained model emits bytes, yet stay learnable.
RESERVED_BIAS = -15.0


@dataclass(frozen=True)
class TinyConfig:
    """Model size; defaults keep a forward on a [32, 64] batch in the low milliseconds."""

    vocab_size: int = VOCAB_SIZE
    d_model: int = 64
    n_layers: int = 2
    n_heads: int = 4
    max_positions: int = 1024


class _Block(nn.Module):
    """Pre-norm transformer block."""

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

    def forward(self, x: torch.Tensor, allowed: torch.Tensor) -> torch.Tensor:
        """``allowed`` is a [B, 1, T, T] boolean attention mask."""
        bsz, width, dim = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(dim, dim=-1)
        shape = (bsz, width, self.n_heads, dim // self.n_heads)
        q, k, v = (t.view(shape).transpose(1, 2) for t in (q, k, v))
        att = F.scaled_dot_product_attention(q, k, v, attn_mask=allowed)
        x = x + self.proj(att.transpose(1, 2).reshape(bsz, width, dim))
        return x + self.mlp(self.ln2(x))


class TinyLM(nn.Module):
    """A byte-level GPT-style causal LM."""

    def __init__(self, cfg: TinyConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.tok = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.pos = nn.Embedding(cfg.max_positions, cfg.d_model)
        self.blocks = nn.ModuleList(_Block(cfg) for _ in range(cfg.n_layers))
        self.norm = nn.LayerNorm(cfg.d_model)
        self.head = nn.Linear(cfg.d_model, cfg.vocab_size)
        with torch.no_grad():
            self.head.bias[BYTE_TOKENS + 1 :] = RESERVED_BIAS

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        position_ids: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Logits [B, T, V]; padded keys are masked, every query may see itself."""
        width = input_ids.shape[1]
        if position_ids is None:
            position_ids = (attention_mask.cumsum(-1) - 1).clamp(min=0)
        position_ids = position_ids.clamp(0, self.cfg.max_positions - 1)
        causal = torch.ones(width, width, dtype=torch.bool, device=input_ids.device).tril()
        allowed = causal[None] & attention_mask.bool()[:, None, :]
        allowed = (allowed | torch.eye(width, dtype=torch.bool, device=input_ids.device))[:, None]
        x = self.tok(input_ids) + self.pos(position_ids)
        for block in self.blocks:
            x = block(x, allowed)
        return self.head(self.norm(x))


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
