"""Replay of verl's bootstrap (pinned 61ed850f): import every module named in
VERL_USE_EXTERNAL_MODULES, comma-separated, whenever verl is imported."""

import importlib
import os

for _name in filter(None, os.environ.get("VERL_USE_EXTERNAL_MODULES", "").split(",")):
    importlib.import_module(_name)
