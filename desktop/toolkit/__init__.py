"""The small pieces every part of the window uses: ``errors`` (the one place an error is shown), ``widgets``
(widget factories, ``ButtonRow``), ``workers`` (engine calls off the GUI thread), ``time_text`` ("5 min ago")."""
