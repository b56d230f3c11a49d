"""Review finding: ``--timeout`` does not bound an HTTP call.

``Endpoint.timeout_s`` is documented as "bounds each HTTP call", and the CLI promises a timeout,
but the client passes it to ``httpx.Timeout`` as a per-read limit.  A server that sends its
answer one byte at a time, each byte well inside the limit, keeps a call alive for as long as it
likes (reproduced on the CLI: `sxs llm-judge grade ... --timeout 2 --retries 0` against such a
server ran until killed after 120 s).  The call must fail as a timeout instead.
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator

import pytest

from judge_app.llm.client import ChatClient, Endpoint, RetryableError

ANSWER = json.dumps({"model": "m", "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": '{"grade": 1, "reason": "x"}'}}],
                     "usage": {"prompt_tokens": 1, "completion_tokens": 1}}).encode()


@pytest.fixture
def trickling_server() -> Iterator[str]:
    """Answers every request correctly, but one byte every 0.1 s (about 20 s in all)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            with conn:
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             + f"Content-Length: {len(ANSWER)}\r\n\r\n".encode())
                for byte in ANSWER:
                    if stop.wait(0.1):  # paced by the server, not a test sleep
                        return
                    try:
                        conn.sendall(bytes([byte]))
                    except OSError:
                        break

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
    stop.set()
    thread.join(5)
    listener.close()


def test_timeout_bounds_the_whole_call_not_each_read(trickling_server: str) -> None:
    endpoint = Endpoint(base_url=trickling_server, model="m", timeout_s=0.5)
    with ChatClient(endpoint, environ={}) as client, pytest.raises(RetryableError,
                                                                   match="no answer within"):
        client.complete([{"role": "user", "content": "grade this"}])
