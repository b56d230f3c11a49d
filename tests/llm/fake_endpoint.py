"""A chat-completions server on 127.0.0.1 that answers by a fixed rule from the prompt.

Rules (the test's independent oracle, written here without sxs's code):

* grade: the number of query words (ignoring the behaviour words below) that appear in the
  document's title, capped at ``max_grade``;
* prefer: the first word of the query is its topic; the side whose first result's title
  contains the topic is better — ``same`` when both do, ``both_bad`` when neither does.

Behaviour words in the query change the answer: ``garble`` (prose, not JSON), ``fenced``
(JSON in a Markdown fence), ``empty`` (empty content), ``refuse`` (``message.refusal``),
``overshoot`` (grade 9, choice "maybe"), ``biased`` (always "left"), ``busy`` (429 with
``Retry-After: 1`` on the first request, then the answer), ``flaky`` (500 once, then the
answer), ``crash`` (always 500), ``slow`` (no answer until the test ends), ``hold`` (wait until the
test opens ``gate``), ``garble2`` (garbled on the second
request for the query), ``echokey`` (401 whose body quotes the Authorization header),
``trickle`` (the right answer, its body sent one byte every 0.1 s: each read is quick, the
whole answer takes a minute).

Every successful answer reports usage 100 prompt / 10 completion tokens.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BEHAVIOURS = {"garble", "fenced", "empty", "refuse", "overshoot", "biased", "busy", "flaky",
              "crash", "slow", "hold", "garble2", "echokey", "trickle"}
PROMPT_TOKENS, COMPLETION_TOKENS = 100, 10


@dataclass(frozen=True)
class Seen:
    """One request as the server received it."""

    authorization: str | None
    body: dict
    query: str
    kind: str  # "grade" or "prefer"
    left_title: str | None  # prefer: the left list's first title
    messages_sha256: str


def first_title(text: str, heading: str) -> str | None:
    found = re.search(rf"{heading}:\n1\. Title: (.*)", text)
    return found.group(1).strip() if found else None


class FakeLLM:
    def __init__(self, max_grade: int = 3) -> None:
        self.max_grade = max_grade
        self.gate = threading.Event()
        self.seen: list[Seen] = []
        self.per_query: Counter[str] = Counter()
        self.release = threading.Event()
        self.active = 0
        self.max_active = 0
        self.lock = threading.Condition()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_: object) -> None:
                pass

            def do_POST(self) -> None:
                outer.handle(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def start(self) -> FakeLLM:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.release.set()
        self.gate.set()
        with self.lock:
            self.lock.notify_all()
        self.server.shutdown()
        self.server.server_close()

    def wait_for(self, condition, timeout: float) -> bool:
        """Wait until ``condition()`` holds (checked at every arrival), or ``timeout``."""
        with self.lock:
            return self.lock.wait_for(condition, timeout)

    def count(self, query: str) -> int:
        with self.lock:
            return self.per_query[query]

    # -- the protocol ---------------------------------------------------------------------

    def handle(self, request: BaseHTTPRequestHandler) -> None:
        if request.path != "/v1/chat/completions":
            return self.send(request, 404, {"error": {"message": "not found"}})
        length = int(request.headers.get("Content-Length", 0))
        try:
            body = json.loads(request.rfile.read(length))
            messages = body["messages"]
            user = messages[-1]["content"]
            assert isinstance(body["model"], str)
        except (ValueError, KeyError, IndexError, TypeError, AssertionError):
            return self.send(request, 400, {"error": {"message": "bad request"}})
        query = re.search(r"^Query: (.*)$", user, re.MULTILINE).group(1)
        kind = "prefer" if "Left results:" in user else "grade"
        canonical = json.dumps(messages, sort_keys=True, separators=(",", ":"),
                               ensure_ascii=False)
        with self.lock:
            self.seen.append(Seen(request.headers.get("Authorization"), body, query, kind,
                                  first_title(user, "Left results"),
                                  hashlib.sha256(canonical.encode()).hexdigest()))
            self.per_query[query] += 1
            nth = self.per_query[query]
            self.active += 1
            request.left = False
            self.max_active = max(self.max_active, self.active)
            self.lock.notify_all()
        try:
            self.answer(request, body, user, query, kind, nth)
        finally:
            self.leave(request)

    def leave(self, request: BaseHTTPRequestHandler) -> None:
        """No longer in flight: called before the answer is written, so a client's next
        request can never overlap this one in the count."""
        with self.lock:
            if not getattr(request, "left", True):
                request.left = True
                self.active -= 1

    def answer(self, request: BaseHTTPRequestHandler, body: dict, user: str, query: str,
               kind: str, nth: int) -> None:
        words = query.lower().split()
        does = set(words) & BEHAVIOURS
        if "crash" in does or ("flaky" in does and nth == 1):
            return self.send(request, 500, {"error": {"message": "upstream failed"}})
        if "busy" in does and nth == 1:
            return self.send(request, 429, {"error": {"message": "slow down"}},
                             {"Retry-After": "1"})
        if "echokey" in does:
            return self.send(request, 401, {"error": {"message": "Incorrect API key "
                                                     + str(request.headers.get("Authorization"))}})
        if "slow" in does:
            self.release.wait(30)
            return None
        if "hold" in does:
            self.gate.wait(20)
        if "garble" in does or ("garble2" in does and nth == 2):
            return self.reply(request, body, "Sure! This document looks quite relevant to me.")
        if "empty" in does:
            return self.reply(request, body, "")
        if "refuse" in does:
            return self.reply(request, body, None, refusal="I can't help with that request.")
        plain = [word for word in words if word not in BEHAVIOURS]
        if kind == "grade":
            title = re.search(r"^Document:\nTitle: (.*)$", user, re.MULTILINE).group(1).lower()
            grade = min(self.max_grade, sum(word in title.split() for word in plain))
            answer = {"grade": 9 if "overshoot" in does else grade,
                      "reason": f"{grade} query words in the title"}
        else:
            topic = plain[0]
            left = topic in (first_title(user, "Left results") or "").lower().split()
            right = topic in (first_title(user, "Right results") or "").lower().split()
            choice = ("left" if left and not right else "right" if right and not left
                      else "same" if left else "both_bad")
            if "biased" in does:
                choice = "left"
            if "overshoot" in does:
                choice = "maybe"
            answer = {"choice": choice, "reason": f"topic {topic!r} on top"}
        text = json.dumps(answer)
        if "fenced" in does:
            text = f"```json\n{text}\n```"
        return self.reply(request, body, text, trickle="trickle" in does)

    def reply(self, request: BaseHTTPRequestHandler, body: dict, content: str | None,
              refusal: str | None = None, trickle: bool = False) -> None:
        message = {"role": "assistant", "content": content}
        if refusal:
            message["refusal"] = refusal
        self.send(request, 200, {
            "id": "chatcmpl-test", "object": "chat.completion",
            "model": body["model"] + "-2026-01-01",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": PROMPT_TOKENS, "completion_tokens": COMPLETION_TOKENS,
                      "total_tokens": PROMPT_TOKENS + COMPLETION_TOKENS}}, trickle=trickle)

    def send(self, request: BaseHTTPRequestHandler, status: int, payload: dict,
             headers: dict[str, str] | None = None, trickle: bool = False) -> None:
        data = json.dumps(payload).encode()
        self.leave(request)
        try:
            request.send_response(status)
            request.send_header("Content-Type", "application/json")
            request.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                request.send_header(name, value)
            request.end_headers()
            if not trickle:
                request.wfile.write(data)
                return
            request.wfile.flush()
            for byte in data:
                if self.release.wait(0.1):  # paced by the server; ends when the test does
                    return
                request.wfile.write(bytes([byte]))
                request.wfile.flush()
        except OSError:
            pass  # the client gave up (timeout)
