"""The window itself: ``app`` is the composition root (``AppContext``), ``main_window`` wires the panels and
dialogs together, ``menus`` builds the menu bar and ``window_geometry`` fits windows and dialogs to their screen."""
