"""The memory bank in the window: ``memory_bank`` (actions) over ``memory_tree`` (grouped view), ``memory_files``
(export/import) and ``memory_edit_dialog``; ``verified_examples`` holds the thumbs under answers and their tab."""
