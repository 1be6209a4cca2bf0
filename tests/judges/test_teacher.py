"""The teacher judge against a fake OpenAI-compatible server on 127.0.0.1 that answers CiteEval's
F.2 prompts with context labels and F.3 prompts with editing / rating blocks."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citetrain.errors import CitetrainError
from citetrain.judges.base import Judge
from citetrain.judges.teacher import TeacherJudge
from citetrain.llm.teacher_chat import default_cache_path
from citetrain.llm.cache import ChatCache
from citetrain.analysis.editdist import PUBLISHED_WEIGHTS, Action, editdist_score
from citetrain.records import Doc, Record


KEY = "sk-test-teacher-5ecret"
REPO = Path(__file__).resolve().parents[2]
SENTENCE = re.compile(r'<sentence sentence_id="(\d+)"> (.*?) </sentence>')
CITATION = re.compile(r'<citation sentence_id="(\d+)", sentence="[^"]*">(.*?)</citation>')


def query(prompt: str) -> str:
    return prompt.split("<query>")[-1].split("</query>")[0]


def context_answer(prompt: str) -> str:
    """F.2: "You asked ..." is query (1), "... my view ..." model (4), anything else retrieval;
    a query with "garbled" gets no blocks."""
    if "garbled" in query(prompt):
        return "All of them are retrieval, I believe."
    out = []
    for sid, text in SENTENCE.findall(prompt):
        label = 1 if text.startswith("You asked") else 4 if "my view" in text else 2
        out.append(f'<thinking> sentence {sid} </thinking>\n<category sentence_id="{sid}"> {label} '
                   "</category>")
    return "\n".join(out)


def citeeval_answer(prompt: str) -> str:
    """F.3 by the number of ids cited: none → rating 1, one → 5, more → delete the last as
    redundant, rating 3. A query with "ramble" gets no blocks, with "partial" only sentence 1's."""
    if "ramble" in query(prompt):
        return "I think the citations are fine."
    out = []
    for sid, ids in CITATION.findall(prompt.split("<citations>")[-1]):
        if "partial" in query(prompt) and sid != "1":
            continue
        cited = [int(x) for x in re.findall(r"\d+", ids)]
        if len(cited) >= 2:
            edits, rating = f'\n<DELETE citation="{cited[-1]}"> DELETE REASON 3 </DELETE>\n', 3
        else:
            edits, rating = " N/A ", 5 if cited else 1
        out.append(f"<thinking> sentence {sid} </thinking>\n<editing sentence_id=\"{sid}\">{edits}"
                   f'</editing>\n<rating sentence_id="{sid}"> {rating} </rating>')
    return "\n".join(out)


def teacher_answer(prompt: str) -> str:
    if prompt.startswith("You are an expert specializing in analyzing sentences"):
        return context_answer(prompt)
    assert prompt.startswith("You are an expert specializing in analyzing, editing, and rating")
    return citeeval_answer(prompt)


DOCS = [Doc(title="X", text="X is a cat that likes milk."), Doc(title="Y", text="Y is blue.")]
RECORDS = [
    Record(id="a", question="What is X?", docs=DOCS,
           output="X is a cat [1]. X likes milk [1][2]. X is nice."),
    Record(id="b", question="What colour is the sky?", docs=DOCS,
           output="You asked about the sky. The sky is blue [2]. In my view the sky is great [1]."),
    Record(id="c", question="Nothing?", docs=DOCS, output=""),
]


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


def judge(url: str, cache: Path, **kwargs) -> TeacherJudge:
    kwargs = {"retry_delay": 0.001, "timeout": 5, **kwargs}
    return TeacherJudge("teacher-x", base_url=url, cache_path=cache, **kwargs)


def test_end_to_end_scores_by_hand(server, tmp_path):
    srv = server(answer=teacher_answer)
    j = judge(srv.url, tmp_path / "t.sqlite")
    assert isinstance(j, Judge) and j.name == "teacher:teacher-x" and KEY not in repr(j)
    res = j.score(RECORDS, progress=False)
    # a: retrieval x3, ratings 5, 3, 1 -> 1, .5, 0 (the uncited one is 0 in Full anyway)
    # b: query (N/A), retrieval rated 5 -> 1, model (N/A though cited); c: no statements
    assert res.result.scores == {"citeeval_full": pytest.approx(100 * (0.5 + 1.0) / 2),
                                 "citeeval_cited": pytest.approx(100 * (0.75 + 1.0) / 2)}
    rows = {(r["id"], r["statement"]): r for r in res.result.per_statement}
    assert [rows["a", i]["rating"] for i in range(3)] == [1.0, 0.5, 0.0]
    assert rows["a", 1]["edits"] == [(Action.DELETE_REDUNDANT.value, 2)]
    assert [rows["b", i]["context"] for i in range(3)] == ["query", "retrieval", "model"]
    assert rows["b", 2]["full"] is None and rows["b", 2]["cited"] is None
    assert rows["a", 2]["cited"] is None
    assert all(r["status"] == "ok" for r in rows.values()) and res.statements == 6
    info = res.result.info
    assert info["skipped_empty_output"] == 1 and info["skipped_ids"] == ["c"]
    assert (info["unparsed"], info["context_unparsed"], info["requests"]) == (0, 0, 4)
    assert len(srv.prompts) == 4  # one F.2 and one F.3 prompt per record with statements
    assert all(b["model"] == "teacher-x" for b in srv.bodies)

    # EDITDIST of the parsed edits, and every statement applicable without contexts
    ed = judge(srv.url, tmp_path / "t.sqlite", rating="editdist").score(RECORDS, progress=False)
    want = editdist_score((1, 2), [(Action.DELETE_REDUNDANT, 2)], PUBLISHED_WEIGHTS)
    assert ed.result.per_statement[1]["rating"] == pytest.approx(want)
    flat = judge(srv.url, tmp_path / "t.sqlite", contexts=False).score(RECORDS, progress=False)
    assert flat.result.per_record[1]["citeeval_full"] == pytest.approx((0 + 1 + 1) / 3)
    assert len(srv.prompts) == 4  # same F.3 prompts: from the cache


def test_label_gives_raw_outputs_per_record(server, tmp_path):
    srv = server(answer=teacher_answer)
    labels = judge(srv.url, tmp_path / "t.sqlite").label(RECORDS, progress=False)
    assert [lab["id"] for lab in labels] == ["a", "b", "c"]
    assert labels[0]["statements"] == ["X is a cat.", "X likes milk.", "X is nice."]
    assert labels[0]["citeeval_output"] == teacher_answer(labels[0]["citeeval_prompt"])
    assert labels[1]["context_output"].count("<category") == 3
    assert labels[2]["context_prompt"] is None and labels[2]["citeeval_output"] is None


def test_second_score_makes_no_request(server, tmp_path):
    srv = server(answer=teacher_answer)
    first = judge(srv.url, tmp_path / "t.sqlite", concurrency=2).score(RECORDS, progress=False)
    second = judge(srv.url, tmp_path / "t.sqlite").score(RECORDS, progress=False)
    assert len(srv.prompts) == 4
    assert second.result.info["requests"] == 0 and second.result.info["cache_hits"] == 4
    assert second.result.scores == first.result.scores


def test_retries_http_500(server, tmp_path):
    srv = server(answer=teacher_answer, script=[500, 502, 503])
    res = judge(srv.url, tmp_path / "t.sqlite", concurrency=1).score(RECORDS, progress=False)
    assert len(srv.prompts) == 4 + 3 and res.result.scores["citeeval_full"] == pytest.approx(75.0)


@pytest.mark.parametrize("status", [401, 403])
def test_refused_key_names_the_endpoint_not_the_key(server, tmp_path, status):
    srv = server(answer=teacher_answer, script=[status])
    with pytest.raises(CitetrainError) as err:
        judge(srv.url, tmp_path / "t.sqlite", concurrency=1).score(RECORDS, progress=False)
    msg = str(err.value)
    assert srv.url in msg and f"HTTP {status}" in msg and "OPENAI_API_KEY" in msg
    assert KEY not in msg and "\n" not in msg and len(srv.prompts) == 1


def test_unparsable_outputs_reported_per_statement(server, tmp_path):
    srv = server(answer=teacher_answer)
    records = [
        Record(id="r", question="ramble?", docs=DOCS, output="X is a cat [1]. Y is blue [2]."),
        Record(id="p", question="partial?", docs=DOCS, output="X is a cat [1]. Y is blue [1][2]."),
        Record(id="g", question="garbled?", docs=DOCS, output="X is a cat [1]."),
    ]
    res = judge(srv.url, tmp_path / "t.sqlite").score(records, progress=False)
    rows = {(r["id"], r["statement"]): r for r in res.result.per_statement}
    assert [(rows["r", i]["status"], rows["r", i]["reason"]) for i in range(2)] == [
        ("unparsed", "no editing block")] * 2
    assert rows["r", 0]["rating"] is None and rows["r", 0]["full"] is None
    # the partial output's readable sentence still counts
    assert (rows["p", 0]["status"], rows["p", 0]["rating"]) == ("ok", 1.0)
    assert rows["p", 1]["status"] == "unparsed"
    # unreadable context labels count as retrieval (CiteEval's default) and are counted
    assert rows["g", 0]["context"] == "retrieval" and rows["g", 0]["rating"] == 1.0
    info = res.result.info
    assert info["unparsed"] == 3 and info["unparsed_reasons"] == {"no editing block": 3}
    assert info["context_unparsed"] == 1 and info["contexts_defaulted"] == 1
    assert [r["citeeval_full"] for r in res.result.per_record] == [None, 1.0, 1.0]
    assert res.result.scores["citeeval_full"] == pytest.approx(100.0)


CHILD = """
import json, sys
from citetrain.judges.teacher import TeacherJudge
from citetrain.records import Record
url, cache, records = sys.argv[1:4]
recs = [Record.model_validate(r) for r in json.loads(open(records).read())]
TeacherJudge("teacher-x", base_url=url, cache_path=cache, concurrency=1, timeout=60).score(
    recs, progress=False)
"""


def many_records(n: int) -> list[Record]:
    return [Record(id=f"m{i}", question=f"Question {i}?", docs=DOCS,
                   output=f"Fact {i} holds [1]. Fact {i} also holds [1][2]. Done {i}.")
            for i in range(n)]


def test_resume_after_a_kill(server, tmp_path):
    records = many_records(4)  # 8 prompts: 4 F.2, then 4 F.3
    path = tmp_path / "records.json"
    path.write_text(json.dumps([r.to_dict() for r in records]))
    cache = tmp_path / "t.sqlite"
    hanging = server(answer=teacher_answer, hang_after=5)
    proc = subprocess.Popen([sys.executable, "-c", CHILD, hanging.url, str(cache), str(path)],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 60  # a loaded machine imports slowly
        while len(hanging.prompts) < 6 or len(ChatCache(cache)) < 5:
            assert proc.poll() is None, proc.stdout.read().decode()  # type: ignore[union-attr]
            assert time.monotonic() < deadline, "the child never reached the hanging request"
            time.sleep(0.02)
    finally:
        proc.kill()
        proc.wait()
    answered = set(hanging.prompts[:5])
    healthy = server(answer=teacher_answer)
    resumed = judge(healthy.url, cache).score(records, progress=False)
    assert len(healthy.prompts) == 3 and not answered & set(healthy.prompts)
    assert resumed.result.info["requests"] == 3 and resumed.result.info["cache_hits"] == 5
    fresh = judge(server(answer=teacher_answer).url, tmp_path / "fresh.sqlite").score(
        records, progress=False)
    assert resumed.result.scores == fresh.result.scores
    assert resumed.result.per_statement == fresh.result.per_statement
    assert resumed.result.per_record == fresh.result.per_record


def test_settings_and_default_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("CITETRAIN_CACHE", str(tmp_path / "c" / "nli.sqlite"))
    assert default_cache_path() == tmp_path / "c" / "teacher.sqlite"

    class Spec:
        model, base_url, api_key_env, max_tokens, concurrency = "m", "http://h/v1", "K", 99, 3

    j = TeacherJudge.from_settings(Spec(), cache_path=tmp_path / "x.sqlite", rating="ensemble")
    c = j.chat.client
    assert (c.model, c.base_url, c.api_key_env, c.max_tokens, c.concurrency) == (
        "m", "http://h/v1", "K", 99, 3)
    assert j.rating == "ensemble" and j.chat.cache.path == tmp_path / "x.sqlite"
    with pytest.raises(ValueError, match="rating must be"):
        TeacherJudge("m", cache_path=tmp_path / "x.sqlite",
                     rating="likert")  # type: ignore[arg-type]
