"""Loaded by every Python child whose PYTHONPATH holds this folder: installs the egress guard, armed.

Attempts are appended to ``$CAIRN_EGRESS_LOG`` (JSON lines) for the parent test to check.
"""

from __future__ import annotations

import os

if os.environ.get("CAIRN_EGRESS_LOG"):
    from cairn_egress_guard import install

    install(os.environ["CAIRN_EGRESS_LOG"], armed=os.environ.get("CAIRN_EGRESS_ARMED", "1") == "1")
