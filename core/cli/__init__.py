"""The ``cairn`` command line: ``ask``, ``schema``, ``hidden``, ``memory`` and ``doctor``.

It reaches the engine through :class:`core.composition.Services` and the public names of the other packages.
"""

from core.cli._commands import main
from core.cli._process import finish

__all__ = ["finish", "main"]
