"""A small dataset for the LLM judge's service, CLI and page tests, with the answers the fake
endpoint's rules give written out by hand (tests/llm/fake_endpoint.py).

Grade rule: query words in the title (cap 3).  Prefer rule: the first query word is the topic;
the list whose first title holds it is better.  ``garble`` answers are malformed, ``biased``
always says "left" (so its two side orders conflict).
"""

from __future__ import annotations

import pandas as pd

from judge_app.store import Dataset, Store
from metrics.scale import ESCI

QUERIES = {"q1": "red shoes", "q2": "blue shirt", "q3": "wool hat", "q4": "garble lamp",
           "q5": "biased tea"}
TITLES = {"d1": "Red running shoes", "d2": "Blue hat", "d3": "Red shoes sale",
          "d4": "Blue shirt cotton", "d5": "Green trousers", "d6": "Wool hat", "d7": "Lamp",
          "d8": "Desk lamp", "d9": "Green tea", "d10": "Black tea"}
RUN_A = {"q1": ["d1", "d2"], "q2": ["d4", "d5"], "q3": ["d6", "d7"], "q4": ["d7"],
         "q5": ["d9"]}
RUN_B = {"q1": ["d2", "d3"], "q2": ["d5", "d4"], "q3": ["d6", "d7"], "q4": ["d8"],
         "q5": ["d10"]}
DATASET_GRADES = [("q1", "d2", 0)]  # so (q1, d2) is never asked

# The grades the rule gives to every (query, doc) the LLM is asked at k=2; q4's are garbled.
LLM_GRADES = {("q1", "d1"): 2, ("q1", "d3"): 2, ("q2", "d4"): 2, ("q2", "d5"): 0,
              ("q3", "d6"): 2, ("q3", "d7"): 0, ("q5", "d9"): 1, ("q5", "d10"): 1}
FAILED_GRADES = {("q4", "d7"), ("q4", "d8")}

# Experts: ann and bob.
EXPERT_GRADES = [("q1", "d1", 2, "ann"), ("q2", "d4", 3, "ann"), ("q2", "d5", 0, "ann"),
                 ("q1", "d1", 1, "bob"), ("q2", "d5", 1, "bob")]
# (query, judge, left_run, choice) on the pair (A, B)
EXPERT_VOTES = [("q1", "ann", "A", "left"), ("q2", "ann", "B", "right"),
                ("q5", "ann", "B", "left"), ("q1", "bob", "A", "right")]


def build_shop(store: Store, with_experts: bool = True) -> Dataset:
    dataset = store.create_dataset("shop", ESCI)
    store.put_queries(dataset, pd.DataFrame({"query_id": list(QUERIES),
                                             "text": list(QUERIES.values())}))
    store.put_documents(dataset, pd.DataFrame({"doc_id": list(TITLES),
                                               "title": list(TITLES.values()),
                                               "brand": ["Acme"] * len(TITLES)}))
    store.put_judgments(dataset, pd.DataFrame(DATASET_GRADES,
                                              columns=["query_id", "doc_id", "grade"]), "qrels")
    for name, run in (("A", RUN_A), ("B", RUN_B)):
        rows = [(q, d, rank, 10.0 - rank, rank) for q, docs in run.items()
                for rank, d in enumerate(docs, start=1)]
        store.put_run(dataset, name, pd.DataFrame(rows, columns=["query_id", "doc_id", "rank",
                                                                 "score", "line"]), "test",
                      trust_rank=True)
    if with_experts:
        for i, (q, d, g, judge) in enumerate(EXPERT_GRADES):
            store.add_expert_label(dataset, q, d, g, judge, f"t-grade-{i}")
        for q, judge, left, choice in EXPERT_VOTES:
            if judge not in set(store.judges()["name"]):
                store.invite_judge(judge)
            view = store.issue_view(dataset, q, "A", "B", left, 2, judge, blind=True)
            store.cast_vote(dataset, view.view_id, choice, judge, reason=f"{judge} thinks so")
    return dataset
