"""The memory bank in the window: ``memory_bank`` (actions) over ``memory_tree`` (grouped view), ``memory_files``
(export/import) and ``memory_edit_dialog``; ``verified_examples`` holds the thumbs under answers and their tab;
``rule_confirmation`` shows each rule a message saved under its reply (enforced, or waiting for the person to keep a
reading) with Keep / Only as context / Edit…, and the bank's own Keep and Only as context buttons."""
