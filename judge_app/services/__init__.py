"""The use cases, one module each; the CLI and the pages call these same functions.

* :mod:`~judge_app.services.importing` — datasets, and files into them;
* :mod:`~judge_app.services.judging` — what a judge sees, votes, grades, undo, backfill;
* :mod:`~judge_app.services.queue` — which query or result a judge gets next (pure), and the rules
  that choose it;
* :mod:`~judge_app.services.next_query` — the query a judge sees next and the rule that chose
  it (the judge page draws what it returns);
* :mod:`~judge_app.services.analysis` — the label basis, evaluate and compare, and what each
  figure stands on;
* :mod:`~judge_app.services.dashboard` — the dashboard's figures, computed once;
* :mod:`~judge_app.services.checks` — unit-test-style rules over a run;
* :mod:`~judge_app.services.report` — the dashboard as one HTML file;
* :mod:`~judge_app.services.exporting` — labels and tables out;
* :mod:`~judge_app.services.backups` — backups and restores, also from the serving process;
* :mod:`~judge_app.services.deletion` — deleting a run or a dataset, on confirmation;
* :mod:`~judge_app.services.clicks` — click logs, session replay, click-derived labels;
* :mod:`~judge_app.services.llm_judging`, :mod:`~judge_app.services.llm_agreement` — the LLM
  judge and how far it agrees with the experts;
* :mod:`~judge_app.services.demo` — the offline demos.
"""
