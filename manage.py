#!/usr/bin/env python
"""Django's command-line utility for the arena."""
import os
import sys
from pathlib import Path

if __name__ == "__main__":
    root = Path(__file__).resolve().parent
    # platform/ is a source root, not a package (see pyproject.toml).
    for path in (root, root / "platform"):
        if str(path) not in sys.path:
            sys.path.insert(0, str(path))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arena.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
