"""DSSST1 bodies for hostile tests: the golden bad vectors and envelopes that lie.

Shared by the fuzz hooks, the bad-input tests and the contract-check kit, so all send the
same bytes; they live in ``contract_check.dssst1``.
"""

from contract_check.dssst1 import chunk_of, golden_bad_frames, golden_dir, lying_chunk

__all__ = ["chunk_of", "golden_bad_frames", "golden_dir", "lying_chunk"]
