"""``cairn selftest``, the check a packaged install runs in a temporary profile: ``runner`` runs and reports the
``steps`` (embedded server, MiniLM offline, one question, a memory, the window) under a network guard."""
