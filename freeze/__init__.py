"""Build-time helpers for ``build.spec`` (PyInstaller): nothing here ships in the bundle."""
