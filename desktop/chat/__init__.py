"""The conversation: ``chat_panel`` (questions, answers, notes, held questions), its words in ``chat_words``, its
message ``bubbles`` and ``find_bar`` (Ctrl+F: find words in the conversation). Like the panels, it never imports
them."""
