"""The TaskRunner the verl drive hands to verl's real `run_ppo` (see verl_roles.py for what
it cuts and what replaces `fit`): on verl PR #7102 (REALFW2_VERL_V1=1) the V1
`TaskRunnerV1`, elsewhere the release's `TaskRunner` around `RemoteBackendTrainer`.

Importable by Ray workers (its folder is on PYTHONPATH, which they inherit).
"""

from __future__ import annotations

import asyncio
import os
import traceback

from verl_roles import harness_fit, harness_init_workers, rec

if os.environ.get("REALFW2_VERL_V1") == "1":  # PR #7102: the V1 TaskRunner, no RemoteBackendTrainer
    from verl.trainer.main_ppo import TaskRunnerV1 as _V1

    class _NoServers:
        """Stands for the LLM-server manager the harness does not build (vLLM / replicas)."""

        def get_replicas(self):
            return []

        def get_client(self):
            return None

    class HarnessTaskRunner(_V1.__ray_actor_class__):
        def run(self, config):
            import verl.trainer.ppo.v1.trainer_base as base
            from verl.trainer.ppo.v1.trainer_sync import PPOTrainerSync

            base.RewardLoopManager = lambda *a, **k: None  # cut: no reward workers
            base.LLMServerManager.create = classmethod(lambda cls, **k: _NoServers())
            type(self).init_agent_loop_manager = lambda runner: None  # cut: no agent loop
            PPOTrainerSync.fit = lambda trainer, _manager: harness_fit(trainer, v1=True)
            try:
                super().run(config)  # REAL TaskRunnerV1.run: tq.init, trainer.init(), fit
                rec("V5 TaskRunnerV1.run (real) completed", True, "")
            except Exception as exc:
                rec(
                    "V5 TaskRunnerV1.run (real) completed",
                    False,
                    "".join(traceback.format_exception(exc))[-1500:],
                )
else:
    from verl.trainer.main_ppo import TaskRunner

    class HarnessTaskRunner(TaskRunner):
        def run(self, config):
            import verl.remote_backend.trainer as rbt
            from verl.remote_backend.base import RemoteBackendRegistry

            rbt.RemoteBackendTrainer.init_workers = harness_init_workers
            rbt.RemoteBackendTrainer.fit = harness_fit
            real_create = RemoteBackendRegistry.create.__func__
            made = {}

            def create(cls, name, main_config):  # observe what RemoteBackendTrainer gets
                made["backend"] = real_create(cls, name, main_config)
                return made["backend"]

            RemoteBackendRegistry.create = classmethod(create)
            real_destroy = rbt.RemoteBackendTrainer.destroy

            def destroy(trainer):
                backend = trainer.backend
                import warnings

                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    real_destroy(
                        trainer
                    )  # REAL: 61ed850f calls backend.destroy() without await, 9dfab8e5d via asyncio.run
                    import gc

                    gc.collect()
                left_open = getattr(backend, "_client", None) is not None
                never_awaited = [
                    str(w.message)[:90] for w in caught if "never awaited" in str(w.message)
                ]
                rec(
                    "V15 RemoteBackendTrainer.destroy() (real) shuts the driver-side client, nothing left un-awaited",
                    not left_open and not never_awaited,
                    f"client still open after destroy: {left_open}; "
                    f"warnings: {[str(w.message)[:90] for w in caught]}",
                )
                asyncio.run(
                    backend.destroy()
                )  # as the merged trainer calls it; a second call is a no-op
                rec(
                    "V16 a second destroy (through asyncio.run, as the merged trainer calls it) is a no-op",
                    True,
                    "",
                )

            rbt.RemoteBackendTrainer.destroy = destroy
            try:
                super().run(config)  # REAL TaskRunner.run
                b = made.get("backend")
                rec(
                    "V5 TaskRunner.run -> RemoteBackendTrainer -> RemoteBackendRegistry.create('cortex', config)",
                    b is not None and type(b).__name__ == "CortexBackend",
                    f"{type(b).__module__}.{type(b).__name__} (bases {[c.__module__ + '.' + c.__name__ for c in type(b).__mro__[1:3]]})"
                    if b is not None
                    else "no backend",
                )
            except Exception as exc:
                rec(
                    "V5 TaskRunner.run (real) completed",
                    False,
                    "".join(traceback.format_exception(exc))[-1500:],
                )
