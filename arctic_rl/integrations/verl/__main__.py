"""``python -m arctic_rl.integrations.verl``: says how verl uses this package instead."""

import sys

USAGE = """\
arctic_rl.integrations.verl is verl's Cortex remote backend, not a command of its own.
Run verl's trainer with it:

    VERL_USE_EXTERNAL_MODULES=arctic_rl.integrations.verl.register \\
    python -m verl.trainer.main_ppo 'hydra.searchpath=[pkg://arctic_rl.integrations.verl]' \\
        trainer.remote_backend=cortex remote_backend=cortex \\
        remote_backend.cortex.host=<account host> remote_backend.cortex.database=<db> ...
"""

sys.stderr.write(USAGE)
sys.exit(2)
