"""Replay of the merged verl's bootstrap (release/v0.7.1): import every module named in
VERL_USE_EXTERNAL_MODULES, comma-separated, whenever verl is imported."""

import importlib
import os

for _name in filter(None, os.environ.get("VERL_USE_EXTERNAL_MODULES", "").split(",")):
    importlib.import_module(_name)
