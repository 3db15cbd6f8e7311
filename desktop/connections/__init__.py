"""Database connections in the window: ``connection_dialog`` (saved list and actions) with ``connection_form``
(the fields), and ``password_prompt`` (asks for a saved password, reopens the last connection)."""
