"""Click logs: the real UBI sample against a plain-json oracle, every format, every bad line."""

from __future__ import annotations

import collections
import json
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge_app.errors import InputError
from judge_app.io.clicks import (
    logged_run,
    match_queries,
    normalise_query,
    read_clicks,
)

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "esci-ubi" / "ubi_queries_events.ndjson"


def oracle_documents() -> list[tuple[int, str, dict]]:
    """(document line, index, document) read with nothing but json."""
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    out = []
    for i in range(0, len(lines), 2):
        action, document = json.loads(lines[i]), json.loads(lines[i + 1])
        out.append((i + 2, action["index"]["_index"], document))
    return out


def test_every_action_of_the_sample_is_read() -> None:
    docs = oracle_documents()
    expected = collections.Counter(d["action_name"] for _, index, d in docs
                                   if index == "ubi_events")
    log = read_clicks(SAMPLE)
    assert log.action_counts().to_dict() == dict(expected)
    assert len(expected) == 16                       # impression ... 404_redirect
    assert len(log.queries) == sum(index == "ubi_queries" for _, index, _ in docs)


def test_sample_field_paths_and_lines() -> None:
    docs = {line: (index, d) for line, index, d in oracle_documents()}
    log = read_clicks(SAMPLE)
    for frame in (log.impressions, log.events):
        for row in frame.itertuples():
            index, d = docs[row.line]
            assert index == "ubi_events"
            assert d["action_name"] == row.action
            attributes = d.get("event_attributes") or {}
            obj = attributes.get("object") or {}
            position = (attributes.get("position") or {}).get("ordinal")
            assert (None if pd.isna(row.doc_id) else row.doc_id) == obj.get("object_id")
            assert (None if pd.isna(row.position) else row.position) == position
            if position is not None:
                assert row.rank == position + 1          # UBI ordinals are 0-based here
            session = d.get("session_id") or attributes.get("session_id") or d.get("client_id")
            assert row.session_id == session
            assert (None if pd.isna(row.query_id) else row.query_id) == d.get("query_id")
    sessions = {d.get("session_id") or (d.get("event_attributes") or {}).get("session_id")
                or d.get("client_id") for _, index, d in oracle_documents()
                if index == "ubi_events"}
    assert log.sessions() == len(sessions)
    # both timestamp forms: ISO text (ESCI sample) and epoch milliseconds (ubi-demo)
    assert log.events["timestamp"].notna().all()
    first = log.impressions.iloc[0]
    assert first["timestamp"] == pd.Timestamp("2024-12-10T00:01:29.378Z")


def ubi_documents() -> list[tuple[str, dict]]:
    return [
        ("ubi_queries", {"query_id": "Q1", "client_id": "c1", "user_query": "Red Shoes",
                         "timestamp": "2024-01-01T00:00:00Z"}),
        ("ubi_events", {"action_name": "impression", "query_id": "Q1", "session_id": "s1",
                        "timestamp": "2024-01-01T00:00:01Z",
                        "event_attributes": {"object": {"object_id": "d1"},
                                             "position": {"ordinal": 0}}}),
        ("ubi_events", {"action_name": "click", "query_id": "Q1", "client_id": "c1",
                        "timestamp": 1704067202000,
                        "event_attributes": {"session_id": "s1",
                                             "object": {"object_id": 42},
                                             "position": {"ordinal": 1}}}),
        ("ubi_events", {"action_name": "search", "query_id": "Q1", "client_id": "c9",
                        "timestamp": "2024-01-01T00:00:03Z", "event_attributes": None}),
    ]


def write_bulk(path: Path, documents: list[tuple[str, dict]]) -> Path:
    lines = []
    for index, document in documents:
        lines += [json.dumps({"index": {"_index": index}}), json.dumps(document)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_bulk_plain_and_array_forms_read_the_same(tmp_path: Path) -> None:
    docs = ubi_documents()
    bulk = read_clicks(write_bulk(tmp_path / "bulk.ndjson", docs))
    plain = tmp_path / "plain.jsonl"
    plain.write_text("\n".join(json.dumps(d) for _, d in docs) + "\n", encoding="utf-8")
    array = tmp_path / "array.json"
    array.write_text(json.dumps([d for _, d in docs], indent=2), encoding="utf-8")
    hits = tmp_path / "hits.json"
    hits.write_text(json.dumps([{"_index": i, "_id": str(n), "_source": d}
                                for n, (i, d) in enumerate(docs)]), encoding="utf-8")
    for other in (read_clicks(plain), read_clicks(array), read_clicks(hits)):
        for name in ("queries", "impressions", "events"):
            left = getattr(bulk, name).drop(columns="line")
            right = getattr(other, name).drop(columns="line")
            pd.testing.assert_frame_equal(left, right)
    assert bulk.impressions["line"].tolist() == [4]
    assert read_clicks(plain).events["line"].tolist() == [3, 4]
    click = bulk.events.iloc[0]
    # session from event_attributes, integer object id as text, query text from ubi_queries
    assert (click["session_id"], click["doc_id"], click["rank"]) == ("s1", "42", 2)
    assert click["query"] == "Red Shoes"
    assert click["timestamp"] == pd.Timestamp("2024-01-01T00:00:02Z")
    assert bulk.events.iloc[1]["session_id"] == "c9"          # client_id as the last resort
    one_based = read_clicks(write_bulk(tmp_path / "b1.ndjson", docs[2:]), first_position=1)
    assert one_based.events["rank"].tolist() == [1, pd.NA]


@pytest.mark.parametrize("bad, line, words", [
    ('{"action_name": "click", "timestamp": 1,', 3, "not valid JSON"),
    ('{"query_id": "Q", "timestamp": 1, "session_id": "s"}', 3, "cannot tell"),
    ('{"action_name": "click", "session_id": "s"}', 3, "field timestamp"),
    ('{"action_name": "", "timestamp": 1, "session_id": "s"}', 3, "field action_name"),
    ('{"action_name": "click", "timestamp": 1}', 3, "field session_id"),
    ('{"action_name": "click", "timestamp": 1, "session_id": "s", "event_attributes": '
     '{"position": {"ordinal": 2.5}}}', 3, "position 2.5 is not a whole number"),
    ('{"action_name": "click", "timestamp": 1, "session_id": "s", "event_attributes": '
     '{"position": {"ordinal": "two"}}}', 3, "is not a whole number"),
    ('{"action_name": "click", "timestamp": 1, "session_id": "s", "event_attributes": '
     '{"position": {"ordinal": -1}}}', 3, "before the first position"),
    ('{"action_name": "impression", "timestamp": 1, "session_id": "s", "query_id": "Q", '
     '"event_attributes": {"object": {"object_id": "d"}}}', 3, "impression without"),
    ('{"action_name": "click", "timestamp": "yesterday", "session_id": "s"}', 3,
     "timestamp"),
    ('{"action_name": "click", "timestamp": 1, "session_id": ["s"]}', 3, "expected text"),
    ('[1, 2]', 3, "expected a JSON object"),
])
def test_malformed_lines_name_file_and_line(tmp_path: Path, bad: str, line: int,
                                            words: str) -> None:
    path = tmp_path / "log.ndjson"
    good = json.dumps(ubi_documents()[1][1])
    path.write_text(f"{good}\n\n{bad}\n{good}\n", encoding="utf-8")
    with pytest.raises(InputError) as caught:
        read_clicks(path)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path}, line {line}")
    assert words in message


def test_bulk_structure_errors(tmp_path: Path) -> None:
    docs = ubi_documents()
    unknown = write_bulk(tmp_path / "u.ndjson", [*docs[:2], ("ubi_clicks", docs[2][1])])
    with pytest.raises(InputError, match=r"line 5, field _index: unknown index 'ubi_clicks'"):
        read_clicks(unknown)
    dangling = tmp_path / "d.ndjson"
    dangling.write_text(write_bulk(tmp_path / "x.ndjson", docs).read_text()
                        + '{"index": {"_index": "ubi_events"}}\n', encoding="utf-8")
    with pytest.raises(InputError, match="line 9: a bulk action line with no document"):
        read_clicks(dangling)
    array = tmp_path / "a.json"
    array.write_text('[\n{"action_name": "click", "timestamp": 1, "session_id": "s"},\n'
                     '{"action_name": "click", "timestamp": 1, "session_id": "s" "x"}\n]')
    with pytest.raises(InputError, match="line 3: not valid JSON"):
        read_clicks(array)


def test_tables(tmp_path: Path) -> None:
    csv = tmp_path / "log.csv"
    csv.write_text("session_id,query,doc_id,position,action,timestamp\n"
                   "s1,red shoes,d1,1,impression,2024-01-01T00:00:00Z\n"
                   "s1,red shoes,d2,2,impression,2024-01-01T00:00:00Z\n"
                   "s1,red shoes,d2,2,click,1704067200000\n"
                   "s1,red shoes,,,search,\n", encoding="utf-8")
    log = read_clicks(csv)
    assert log.impressions["rank"].tolist() == [1, 2]      # table positions are 1-based
    assert log.events["action"].tolist() == ["click", "search"]
    assert log.events["line"].tolist() == [4, 5]
    assert log.events["timestamp"].iloc[0] == pd.Timestamp("2024-01-01T00:00:00Z")
    assert log.events["doc_id"].isna().tolist() == [False, True]
    frame = pd.read_csv(csv, dtype=str, keep_default_na=False)
    frame.to_csv(tmp_path / "log.tsv", sep="\t", index=False)
    frame.to_parquet(tmp_path / "log.parquet")
    pd.testing.assert_frame_equal(read_clicks(tmp_path / "log.tsv").events, log.events)
    parquet = read_clicks(tmp_path / "log.parquet").events      # line = row number there
    pd.testing.assert_frame_equal(parquet.drop(columns="line"), log.events.drop(columns="line"))
    assert parquet["line"].tolist() == [3, 4]
    zero = read_clicks(csv, first_position=0)
    assert zero.impressions["rank"].tolist() == [2, 3]


@pytest.mark.parametrize("row, words", [
    ("s1,red shoes,d1,x,impression,", "line 3, field position: position 'x' is not a whole"),
    ("s1,red shoes,d1,1.5,click,", "line 3, field position"),
    (",red shoes,d1,1,click,", "line 3, field session_id"),
    ("s1,red shoes,,1,impression,", "line 3, field doc_id"),
    ("s1,red shoes,d1,0,click,", "line 3, field position: position 0 is before"),
    ("s1,red shoes,d1,1,click,soon", "line 3, field timestamp"),
])
def test_bad_table_rows(tmp_path: Path, row: str, words: str) -> None:
    csv = tmp_path / "log.csv"
    csv.write_text("session_id,query,doc_id,position,action,timestamp\n"
                   f"s1,red shoes,d1,1,impression,\n{row}\n", encoding="utf-8")
    with pytest.raises(InputError, match=words):
        read_clicks(csv)


def test_table_needs_its_columns(tmp_path: Path) -> None:
    csv = tmp_path / "log.csv"
    csv.write_text("session_id,doc_id,action\ns1,d1,click\n", encoding="utf-8")
    with pytest.raises(InputError, match="missing column query or query_id"):
        read_clicks(csv)


def test_normalise_query() -> None:
    assert normalise_query("  Red\u00a0SHOES \t") == "red shoes"
    assert normalise_query("\uff52\uff45\uff44 shoes") == "red shoes"   # full-width
    assert normalise_query("\ufb01sh") == "fish"                         # ligature
    assert normalise_query("Straße") == normalise_query("STRASSE")       # casefold, not lower


def test_match_queries_by_id_then_text(tmp_path: Path) -> None:
    csv = tmp_path / "log.csv"
    csv.write_text("session_id,query_id,query,doc_id,position,action\n"
                   "s1,7,whatever,d1,1,impression\n"       # id 7 is a dataset id
                   "s2,u1,RED  shoes,d2,1,impression\n"    # text of dataset query 8
                   "s2,u1,RED  shoes,d2,1,click\n"
                   "s3,u2,Blue Shoes,d3,1,impression\n"    # two dataset queries have it
                   "s4,u3,green,d4,1,click\n"              # nothing
                   "s4,u4,,,,search\n", encoding="utf-8")  # no text, no dataset id
    dataset = pd.DataFrame({"query_id": ["7", "8", "9", "10"],
                            "text": ["other", "red shoes", "blue shoes", "Blue  shoes"]})
    match = match_queries(read_clicks(csv), dataset)
    report = match.report
    # log queries: "whatever" (id), "red shoes" (text), "blue shoes" (ambiguous), "green"
    assert (report.log_queries, report.matched_by_id, report.matched_by_text,
            report.ambiguous, report.unmatched) == (4, 1, 1, 1, 1)
    # sessions: s1 and s2 matched; s3 and s4 not
    assert (report.sessions, report.sessions_matched, report.sessions_unmatched) == (4, 2, 2)
    assert (report.rows, report.rows_matched, report.rows_without_query) == (6, 3, 1)
    assert report.unmatched_queries["reason"].tolist() == ["ambiguous", "unmatched"]
    assert match.impressions["query_id"].tolist() == ["7", "8"]
    assert match.impressions["log_query_id"].tolist() == ["7", "u1"]
    assert match.impressions["matched_by"].tolist() == ["id", "text"]
    assert match.events["query_id"].tolist() == ["8"]
    assert "4 log queries: 1 matched by id, 1 by text, 1 ambiguous, 1 unmatched" in str(report)


def test_logged_run_pools_sessions_by_mean_rank() -> None:
    shown = pd.DataFrame([
        ("q", "a", 1), ("q", "a", 1),          # mean 1
        ("q", "b", 1), ("q", "b", 3),          # mean 2, 2 impressions
        ("q", "c", 2),                         # mean 2, 1 impression -> after b
        ("q", "e", 4), ("q", "d", 4),          # mean 4, 1 each -> by doc id: d, e
        ("r", "z", 2),
    ], columns=["query_id", "doc_id", "rank"])
    ranked = logged_run(shown)
    assert ranked[["query_id", "doc_id", "rank"]].values.tolist() == [
        ["q", "a", 1], ["q", "b", 2], ["q", "c", 3], ["q", "d", 4], ["q", "e", 5],
        ["r", "z", 1]]
    assert ranked["impressions"].tolist() == [2, 2, 1, 1, 1, 1]


def test_sample_end_to_end_against_a_plain_json_oracle() -> None:
    """Read, match, take the logged ranking as run A and its reverse as B, and replay: the
    engagements and what run A misses are counted again here with nothing but json."""
    from metrics.replay import replay

    docs = oracle_documents()
    texts_of_id = collections.defaultdict(set)
    for _, index, d in docs:
        if index == "ubi_queries" and d.get("user_query"):
            texts_of_id[d["query_id"]].add(d["user_query"])
    # a query_id logged with several texts names none of them
    text_of_id = {q: next(iter(t)) for q, t in texts_of_id.items() if len(t) == 1}
    shown, engaged = set(), set()
    for _, index, d in docs:
        if index != "ubi_events":
            continue
        attributes = d.get("event_attributes") or {}
        text = d.get("user_query") or text_of_id.get(d.get("query_id"))
        doc = (attributes.get("object") or {}).get("object_id")
        if text is None or doc is None:
            continue
        text = normalise_query(text)
        if d["action_name"] == "impression":
            shown.add((text, doc))
        elif d["action_name"] in ("click", "add_to_cart", "purchase"):
            session = (d.get("session_id") or attributes.get("session_id")
                       or d.get("client_id"))
            engaged.add((session, text, doc))
    texts = sorted({text for text, _ in shown})
    engaged = {e for e in engaged if e[1] in set(texts)}
    missed = {e for e in engaged if (e[1], e[2]) not in shown}

    dataset = pd.DataFrame({"query_id": [f"q{i}" for i in range(len(texts))], "text": texts})
    match = match_queries(read_clicks(SAMPLE), dataset)
    run_a = logged_run(match.impressions)
    run_b = run_a.assign(rank=run_a.groupby("query_id")["rank"].transform("max") + 1
                         - run_a["rank"])
    result = replay(match.events, run_a, run_b, permutations=500)
    assert result.basis.engagements == len(engaged)
    assert result.basis.censored_a == result.basis.censored_b == len(missed)
    assert result.basis.skipped_sessions == 0
    assert result.basis.sessions == len({(s, t) for s, t, _ in engaged})
    same = replay(match.events, run_a, run_a, tests=False)
    assert same.summary.unchanged == 1.0


def test_a_query_id_with_two_texts_names_neither(tmp_path: Path) -> None:
    docs = [("ubi_queries", {"query_id": "Q", "user_query": "printe"}),
            ("ubi_queries", {"query_id": "Q", "user_query": "printer toner"}),
            ("ubi_queries", {"query_id": "R", "user_query": "ink"}),
            ("ubi_queries", {"query_id": "R", "user_query": "ink"}),
            ("ubi_events", {"action_name": "click", "query_id": "Q", "session_id": "s",
                            "timestamp": 0}),
            ("ubi_events", {"action_name": "click", "query_id": "R", "session_id": "s",
                            "timestamp": 0})]
    log = read_clicks(write_bulk(tmp_path / "q.ndjson", docs))
    assert log.events["query"].tolist() == [pd.NA, "ink"]


ODD = st.one_of(st.none(), st.booleans(), st.integers(-(10**30), 10**30),
                st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12),
                st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=3),
                                                                     st.integers(), max_size=2))
PLACES = st.sampled_from(["action_name", "query_id", "session_id", "timestamp", "client_id",
                          "user_query", "event_attributes", "object", "position", "ordinal",
                          "object_id"])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(changes=st.lists(st.tuples(PLACES, ODD), min_size=1, max_size=3),
       cut=st.one_of(st.none(), st.integers(0, 400)))
def test_odd_values_read_or_raise_one_line_input_errors(tmp_path: Path, changes: list,
                                                        cut: int | None) -> None:
    document = json.loads(json.dumps(ubi_documents()[1][1]))
    attributes = document["event_attributes"]
    for place, value in changes:
        if place in ("object", "position"):
            attributes[place] = value
        elif place == "ordinal" and isinstance(attributes.get("position"), dict):
            attributes["position"]["ordinal"] = value
        elif place == "object_id" and isinstance(attributes.get("object"), dict):
            attributes["object"]["object_id"] = value
        else:
            document[place] = value
    text = json.dumps({"index": {"_index": "ubi_events"}}) + "\n" + json.dumps(document)
    path = tmp_path / "odd.ndjson"
    path.write_text(text[:cut] if cut is not None else text, encoding="utf-8")
    try:
        log = read_clicks(path)
    except InputError as error:
        assert "\n" not in str(error)
        assert str(error).startswith(str(path))
        return
    assert len(log.impressions) + len(log.events) == 1


def test_a_query_document_without_a_timestamp_beside_ones_with_it_is_read(tmp_path: Path
                                                                         ) -> None:
    """A ``ubi_queries`` document may leave out its timestamp: beside documents giving one
    (epoch milliseconds or ISO text), it is read as no time, not refused as 'timestamp nan'."""
    docs = [(index, {**d, "timestamp": 1704067200000}) if index == "ubi_queries" else (index, d)
            for index, d in ubi_documents()]
    docs += [("ubi_queries", {"query_id": "Q2", "client_id": "c2", "user_query": "blue hat"}),
             ("ubi_queries", {"query_id": "Q3", "client_id": "c3", "user_query": "hat",
                              "timestamp": 1704067205000})]
    log = read_clicks(write_bulk(tmp_path / "bulk.ndjson", docs))
    stamps = log.queries.set_index("query_id")["timestamp"]
    assert pd.isna(stamps["Q2"])
    assert stamps["Q3"] == pd.Timestamp("2024-01-01T00:00:05Z")
    assert stamps["Q1"] == pd.Timestamp("2024-01-01T00:00:00Z")
