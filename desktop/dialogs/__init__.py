"""Stand-alone dialogs: ``settings_dialog``, ``login`` (the first screen: whose memory is used) and
``quality_view`` (the quality dashboard)."""
