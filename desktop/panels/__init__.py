"""The docked panels of the main window beside the chat (``desktop.chat``): ``result_view`` (over ``result_model``
and ``cell_text``), ``chart_view`` (over ``chart_choice``), ``sql_editor`` (with ``sql_explanation``),
``history_view`` and ``schema_browser``. Panels never import each other; only the helpers are shared."""
