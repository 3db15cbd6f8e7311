"""Shared insights in the window: ``suggestions`` (``SuggestionsBar`` under each answer, ``WindowSharing`` fetching
and sharing on workers) and ``shared_insights_dialog`` ("What I've shared…")."""
