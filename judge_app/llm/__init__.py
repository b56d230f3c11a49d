"""The LLM judge: a third witness beside the dataset's labels and the experts.

It asks any OpenAI-compatible chat-completions endpoint the questions sxs asks its experts —
a grade for an unlabelled result, and which of two rankings serves a query better — and
returns answers with their provenance, ready to be stored as the judge ``llm:<model>``.  This
package holds no store code: the caller writes each result as it arrives.

Modules: ``client`` (the endpoint and one HTTP call), ``prompts`` (the versioned templates),
``answers`` (strict reading of replies), ``runner`` (concurrency, retries, budget, resume),
``grade`` and ``prefer`` (the two tasks).  Needs the ``llm`` extra (``pip install 'sxs[llm]'``).

A hosted model (the key stays in the environment; only its variable's name is passed)::

    export OPENAI_API_KEY=...
    endpoint = Endpoint("https://api.openai.com/v1", "gpt-4o-mini", api_key_env="OPENAI_API_KEY")

A local one (llama.cpp ``llama-server --port 8080``, ``vllm serve``, or Ollama)::

    endpoint = Endpoint("http://127.0.0.1:11434/v1", "qwen2.5:7b-instruct")

Then::

    with ChatClient(endpoint) as client:
        runner = Runner(client, concurrency=4, max_calls=500,
                        prices=Prices(prompt_per_1k=0.00015, completion_per_1k=0.0006))
        summary = prefer_rankings(runner, items, seed=0, done=already_judged,
                                  on_result=store_it, progress=show)
"""

from judge_app.llm.answers import LLM_CHOICES, AnswerError, parse_choice, parse_grade
from judge_app.llm.client import (
    LLM_JUDGE_PREFIX,
    CallError,
    CallTimeout,
    ChatClient,
    Completion,
    Endpoint,
    RetryableError,
    Unreachable,
    is_llm_judge,
)
from judge_app.llm.grade import GradeItem, GradeResult, grade_documents, grade_job
from judge_app.llm.prefer import (
    PreferenceResult,
    PreferItem,
    SideAnswer,
    prefer_job,
    prefer_rankings,
)
from judge_app.llm.prompts import GRADE, PREFER, Document, PromptTemplate
from judge_app.llm.runner import (
    CallBudget,
    CallRecord,
    CallSpec,
    EndpointUnreachable,
    Job,
    Prices,
    RetryPolicy,
    Runner,
    RunSummary,
)

__all__ = [
    "GRADE",
    "LLM_CHOICES",
    "LLM_JUDGE_PREFIX",
    "PREFER",
    "AnswerError",
    "CallBudget",
    "CallError",
    "CallRecord",
    "CallSpec",
    "CallTimeout",
    "ChatClient",
    "Completion",
    "Document",
    "Endpoint",
    "EndpointUnreachable",
    "GradeItem",
    "GradeResult",
    "Job",
    "PreferItem",
    "PreferenceResult",
    "Prices",
    "PromptTemplate",
    "RetryPolicy",
    "RetryableError",
    "RunSummary",
    "Runner",
    "SideAnswer",
    "Unreachable",
    "grade_documents",
    "grade_job",
    "is_llm_judge",
    "parse_choice",
    "parse_grade",
    "prefer_job",
    "prefer_rankings",
]
