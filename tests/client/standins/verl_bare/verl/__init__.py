"""Replay of a verl without remote backends (every release on the package index so far):
its bootstrap imports the modules named in VERL_USE_EXTERNAL_MODULES; `verl.remote_backend`
does not exist."""

import importlib
import os

for _name in filter(None, os.environ.get("VERL_USE_EXTERNAL_MODULES", "").split(",")):
    importlib.import_module(_name)
