"""``python -m judge_app.cli``: the same as ``sxs``."""

import sys

from judge_app.cli import main

sys.exit(main())
