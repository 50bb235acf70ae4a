import os
import sys

from engines.cli import main

try:
    status = main()
    sys.stdout.flush()
except BrokenPipeError:  # the reader left (`play ... | head`): nothing more to say, and no traceback
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # Python's own flush at exit would fail again
    status = 1
raise SystemExit(status)
