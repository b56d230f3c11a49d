"""One app replica's judges, for the PostgreSQL load test: ``python -m
tests.reliability.replica_worker ADDRESS QUERIES JUDGE…``.

Each judge is a thread running what the judge page runs — the queue (``plan_from``), a drawn
view with its lease (``side_by_side`` with the round's judges per query), the vote
(``record_vote``) — on the process's one pooled store, over the first QUERIES queries of the
queue order.  Every vote the store acknowledged is printed (``ACK judge view query``) only
after ``record_vote`` returned True, so a line printed is a vote the judge was told was saved.
The judges start when a line arrives on stdin, after the process has printed ``READY``: the
test starts every replica's judges together, so no replica's share is taken before it starts.
"""

from __future__ import annotations

import sys
import threading

from judge_app.services import judging
from judge_app.store import Store
from judge_app.store.votes import QueryFull, StaleView

_print = threading.Lock()


def say(line: str) -> None:
    with _print:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def judge_queries(store: Store, name: str, limit: int) -> None:
    dataset = store.dataset("cranfield")
    round_ = store.current_round(dataset)
    order = judging.query_order(store, dataset, round_.run_a, round_.run_b, round_.k)
    allowed = set(sorted(order.rbo.index)[:limit])
    while True:
        plan = judging.plan_from(store, dataset, order, round_.run_a, round_.run_b, name,
                                 round_.overlap)
        voted = 0
        for query in [q for q in plan.queue if q in allowed]:
            view = judging.side_by_side(store, dataset, round_.run_a, round_.run_b, query,
                                        round_.k, name, round_.blind, round_.overlap)
            if view is None:
                continue
            try:
                if judging.record_vote(store, dataset, view, "left", name, "load test"):
                    say(f"ACK {name} {view.view_id} {query}")
                    voted += 1
            except (QueryFull, StaleView):
                continue
        if voted == 0:
            return


def main(address: str, limit: str, *judges: str) -> None:
    store = Store(address)
    store.dataset("cranfield")  # the pool is open and the store answers
    say("READY")
    sys.stdin.readline()  # the test starts every replica's judges at once
    threads = [threading.Thread(target=judge_queries, args=(store, name, int(limit)))
               for name in judges]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    say("DONE")


if __name__ == "__main__":
    main(*sys.argv[1:])
