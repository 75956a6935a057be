"""``python -m arctic_rl_kit``: the same as the ``cortex-gs-contract-check`` script."""

import sys

from arctic_rl_kit.cli import main

sys.exit(main())
