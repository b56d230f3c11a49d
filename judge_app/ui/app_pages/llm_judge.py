"""Admin: run the LLM judge on a dataset in the background, and watch it.

The run is the one ``sxs llm-judge`` makes (:mod:`judge_app.services.llm_judging`), on a
thread of this server process; the page polls the store's ``llm_calls`` counts.  The API key
never passes through the page: an admin names the environment variable of the server process
that holds it.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime

import streamlit as st

from judge_app.errors import SxsError
from judge_app.services import llm_judging
from judge_app.ui import resources
from judge_app.ui.components import plain, user_errors
from judge_app.ui.setup import pick_dataset
from judge_app.ui.wording import LLM_PAGE, on_page, page_errors

log = logging.getLogger(__name__)
TASKS = {"prefer": "Which run serves each query better (both side orders)",
         "grade": "Grade the unlabelled top-k results"}


@dataclass
class LlmJob:
    """One background run: what it is, how far it got, how it ended."""

    label: str
    control: llm_judging.RunControl
    started_at: datetime
    progress: tuple[int, int, int] = (0, 0, 0)  # finished, to do, failed
    result: llm_judging.LlmRun | None = None
    error: str | None = None
    thread: threading.Thread | None = field(default=None, repr=False)

    @property
    def running(self) -> bool:
        return self.thread is not None and self.thread.is_alive()


@st.cache_resource
def llm_jobs() -> list[LlmJob]:
    """Every run this server process started (shared by the admins' sessions)."""
    return []


def start(label: str, work) -> LlmJob:
    """Run ``work(progress, control)`` on a thread; its outcome lands on the job."""
    job = LlmJob(label, llm_judging.RunControl(), datetime.now(UTC))

    def progress(finished: int, total: int, failures: int) -> None:
        job.progress = (finished, total, failures)

    def target() -> None:
        try:
            job.result = work(progress, job.control)
        except SxsError as error:
            job.error = str(error)
        except Exception as error:  # a bug: keep the page alive, log the traceback
            log.exception("the LLM run %s failed", label)
            job.error = f"{type(error).__name__}: {error}"

    job.thread = threading.Thread(target=target, name=f"llm-judge {label}", daemon=True)
    llm_jobs().append(job)
    job.thread.start()
    return job


store = resources.store()
st.title("LLM judge")
st.caption("Ask an OpenAI-compatible model the experts' questions. Its answers are stored as "
           "the judge llm:<model>, each call with its provenance; it never overwrites a "
           "person's label, and its labels count only where an admin opts in.")
with user_errors():
    llm_judging.require_llm_extra()
dataset = pick_dataset(store)
runs = store.run_names(dataset)
if len(runs) < 2:
    st.info(f"Dataset {plain(dataset.name)} needs two runs.")
    st.stop()

with st.form("llm-run"):
    task = st.radio("Task", list(TASKS), format_func=TASKS.get, key="llm:task")
    left, right = st.columns(2)
    run_a = left.selectbox("Run A", runs, key="llm:run_a")
    run_b = right.selectbox("Run B", runs, index=1, key="llm:run_b")
    k = left.number_input("Depth k", min_value=1, max_value=100, value=10, key="llm:k")
    max_calls = right.number_input("Max calls (0: no limit)", min_value=0, value=200,
                                   key="llm:max_calls")
    base_url = left.text_input("Base URL", value="http://127.0.0.1:11434/v1",
                               key="llm:base_url",
                               help="Before /chat/completions: https://api.openai.com/v1, "
                                    "llama.cpp http://127.0.0.1:8080/v1, vLLM "
                                    "http://127.0.0.1:8000/v1, Ollama "
                                    "http://127.0.0.1:11434/v1.")
    model = right.text_input("Model", key="llm:model")
    key_env = left.text_input("API key environment variable (its name, not the key)",
                              key="llm:key_env", placeholder="OPENAI_API_KEY",
                              help="Read from the environment of the sxs server; leave empty "
                                   "for a local server without a key.")
    concurrency = right.number_input("Concurrency", min_value=1, max_value=64, value=4,
                                     key="llm:concurrency")
    submitted = st.form_submit_button("Start", type="primary")

if submitted:
    with page_errors(LLM_PAGE):
        if not model.strip():
            raise SxsError("name the model to ask")
        if task == "prefer" and run_a == run_b:
            raise SxsError("choose two different runs to compare")
        options = llm_judging.LlmOptions(base_url.strip(), model.strip(),
                                         api_key_env=key_env.strip() or None,
                                         concurrency=int(concurrency),
                                         max_calls=int(max_calls) or None)
        name = dataset.name
        if task == "prefer":
            label = f"{options.judge} prefer {run_a} vs {run_b} on {name} (k={int(k)})"
            start(label, lambda progress, control: llm_judging.prefer(
                store, store.dataset(name), run_a, run_b, int(k), options,
                progress=progress, control=control))
        else:
            label = f"{options.judge} grade {run_a}, {run_b} on {name} (k={int(k)})"
            start(label, lambda progress, control: llm_judging.grade(
                store, store.dataset(name), [run_a, run_b], int(k), options,
                progress=progress, control=control))
    st.toast(f"Started: {plain(label)}")


def show_jobs() -> None:
    st.subheader("Runs")
    jobs = llm_jobs()
    if not jobs:
        st.caption("None started since the server started.")
    for number, job in enumerate(reversed(jobs)):
        finished, total, failures = job.progress
        with st.container(border=True):
            st.markdown(f"**{plain(job.label)}** · started {job.started_at:%H:%M:%S} UTC")
            st.progress(finished / total if total else 0.0,
                        text=f"{finished:,} of {total:,} items, {failures:,} failed")
            if job.running:
                st.button("Stop", key=f"llm:stop:{number}", on_click=job.control.cancel)
            elif job.error is not None:
                st.error(plain(on_page(job.error, LLM_PAGE)))
            elif job.result is not None:
                for line in job.result.lines():
                    st.caption(plain(on_page(line, LLM_PAGE)))
    st.subheader(f"Calls stored for {plain(dataset.name)}")
    st.dataframe(store.llm_call_counts(dataset), hide_index=True)


running = any(job.running for job in llm_jobs())
st.fragment(show_jobs, run_every=2.0 if running else None)()
