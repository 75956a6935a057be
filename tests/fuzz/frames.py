"""DSSST1 bodies for hostile tests: the golden bad vectors and envelopes that lie.

Shared by the fuzz hooks, the bad-input tests and the contract-check kit, so all send the
same bytes; they live in ``arctic_rl_kit.dssst1``.
"""

from arctic_rl_kit.dssst1 import chunk_of, golden_bad_frames, golden_dir, lying_chunk

__all__ = ["chunk_of", "golden_bad_frames", "golden_dir", "lying_chunk"]
