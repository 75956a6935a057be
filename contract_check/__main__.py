"""``python -m contract_check``: the same as the ``cortex-gs-contract-check`` script."""

import sys

from contract_check.cli import main

sys.exit(main())
