"""On PYTHONPATH, hides the installed arctic-platform from this interpreter and its children.

The path finder is wrapped so it never finds `arctic_platform`: the process then behaves
as if only arctic-rl were installed (a Cortex-only driver), while the `.pth` line and
every other package stay as they are.
"""

import sys
from importlib.machinery import PathFinder


class _WithoutPublished(PathFinder):
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name == "arctic_platform" or name.startswith("arctic_platform."):
            return None
        return PathFinder.find_spec(name, path, target)


sys.meta_path[:] = [_WithoutPublished if f is PathFinder else f for f in sys.meta_path]
