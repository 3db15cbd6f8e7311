# Run first in the frozen app. Nothing may be written inside the install directory, and nothing downloaded:
# no bytecode caches beside bundled sources, and the Hugging Face libraries kept offline from the very start.
import os
import sys

sys.dont_write_bytecode = True
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
