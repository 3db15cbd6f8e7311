# Run first in the frozen app. Nothing may be written inside the install directory, and nothing downloaded:
# no bytecode caches beside bundled sources, and the Hugging Face libraries kept offline from the very start.
import os
import sys

sys.dont_write_bytecode = True
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")

# PySide6's signature parser warns about the types of the Qt modules left out of the bundle ("pyside_type_init:
# UNRECOGNIZED ..."): harmless (those signatures are only for introspection), but a page of noise in a terminal.
import warnings  # noqa: E402

warnings.filterwarnings("ignore", message=r"pyside_type_init", category=RuntimeWarning)
