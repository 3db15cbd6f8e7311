"""The local models: ``model_manager`` (the dialog) with ``model_tables`` and ``gguf_import_dialog``, and
``ollama_watch`` (the Ollama status and the first-run banner)."""
