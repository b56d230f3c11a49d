"""The ``sxs`` command line: a thin layer over :mod:`judge_app.services`, one module per
group of commands (datasets, imports, analysis, decision, exports, judges, gold, serving,
clicks, llm, backup, deletion, transfer).

The library's own errors (:class:`~judge_app.errors.SxsError`) become one line on stderr and
exit code 2; a real bug shows its traceback.  Every command's help ends with an example.
"""

from judge_app.cli import (
    analysis,
    backup,
    clicks,
    datasets,
    decision,
    deletion,
    exports,
    gold,
    imports,
    judges,
    llm,
    serving,
    transfer,
)
from judge_app.cli.base import main

__all__ = ["analysis", "backup", "clicks", "datasets", "decision", "deletion", "exports", "gold",
           "imports", "judges", "llm", "main", "serving", "transfer"]
