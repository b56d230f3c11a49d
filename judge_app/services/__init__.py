"""The use cases, one module each; the CLI and the pages call these same functions.

* :mod:`~judge_app.services.importing` — datasets, and files into them;
* :mod:`~judge_app.services.judging` — what a judge sees, votes, grades, undo;
* :mod:`~judge_app.services.queue` — which query or result a judge gets next (pure);
* :mod:`~judge_app.services.analysis` — the label basis, evaluate and compare;
* :mod:`~judge_app.services.dashboard` — the dashboard's figures, computed once;
* :mod:`~judge_app.services.checks` — unit-test-style rules over a run;
* :mod:`~judge_app.services.report` — the dashboard as one HTML file;
* :mod:`~judge_app.services.exporting` — labels and tables out;
* :mod:`~judge_app.services.demo` — the offline Cranfield demo.
"""
