"""``longbench_cite``'s LLM judge loses nothing: every answer goes through the persistent answer
cache as it arrives (a killed run, rerun, pays no answer twice), an unreadable verdict leaves its
statement unscored (``strict`` raises), and ``citetrain eval --dry-run`` counts the requests and
prompt tokens before anything is sent. The fake judge (:mod:`tests.metrics.longbench_fake`)
counts the answers it gives."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from citetrain.cli.main import main
from citetrain.errors import CitetrainError
from citetrain.llm.cache import ChatCache, judge_cache_path
from citetrain.metrics.longbench_cite import longbench_cite
from citetrain.metrics.longbench_judges import (
    NEED_CITATION_PROMPT, RELEVANCE_PROMPT, SUPPORT_PROMPT, TRIES,
)
from citetrain.metrics.report import Report
from tests.metrics.longbench_fake import LongBenchFake, block, verdict
from tests.metrics.test_longbench_cite import rec, st

REPO = Path(__file__).resolve().parents[2]
DATA = Path(__file__).parent / "data" / "longbench_cite_en.json"


class Counting:
    """An answer function that counts the answers it gives, per prompt."""

    def __init__(self, answer) -> None:
        self.answer, self.given, self.lock = answer, Counter(), threading.Lock()

    def __call__(self, prompt: str) -> str:
        with self.lock:
            self.given[prompt] += 1
        return self.answer(prompt)


def write_suite(tmp_path: Path, url: str, data: Path = DATA, **options) -> Path:
    """A suite scoring ``data`` with longbench_cite's LLM judge at ``url`` (JSON is YAML)."""
    suite = {"name": "lbc", "data": [{"path": str(data), "format": "longcite"}],
             "metrics": ["longbench_cite"], "out": str(tmp_path / "out"),
             "options": {"longbench_cite": {"judge": "llm:m", "base_url": url, "concurrency": 2,
                                            **options}}}
    path = tmp_path / "suite.yaml"
    path.write_text(json.dumps(suite), encoding="utf-8")
    return path


def read_items(path: Path = DATA):
    from citetrain.io.formats import convert_longcite

    items = json.loads(path.read_text(encoding="utf-8"))
    return [r for i, x in enumerate(items) for r in convert_longcite(x, str(i))]


def wait_for(cond, seconds: float = 60.0) -> None:
    end = time.monotonic() + seconds
    while not cond():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.05)


def test_a_killed_run_rerun_pays_no_answer_twice(tmp_path, server):
    """The eval process is killed (SIGKILL) while requests past the 10th hang; the rerun asks
    only for the rest, and every answer was given once, as many as an uninterrupted run needs;
    a third run sends nothing."""
    ref_fake = Counting(LongBenchFake())
    ref_srv = server(answer=ref_fake)
    ref = longbench_cite(read_items(), None, judge="llm:m", base_url=ref_srv.url, cache=False)
    fake = Counting(LongBenchFake())
    srv = server(answer=fake, hang_after=10)
    suite = write_suite(tmp_path, srv.url)
    argv = ["eval", str(suite), "--no-progress"]
    child = subprocess.Popen([sys.executable, "-c", "import sys; from citetrain.cli.main import "
                              f"main; sys.exit(main({argv!r}))"], cwd=REPO,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: judge_cache_path().is_file() and len(ChatCache(judge_cache_path())) == 10)
        wait_for(lambda: len(srv.prompts) > 10)  # the next requests hang: the run is mid-way
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    assert sum(fake.given.values()) == 10
    srv.hang_after = None
    srv.closing.set()  # the hung requests end unanswered
    assert main(argv) == 0
    assert fake.given == ref_fake.given  # every answer once, none twice
    assert sum(fake.given.values()) == ref.info["requests"] > 10
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    got = {e["id"]: e["citation_f1"] for e in report["per_record"]["longbench_cite"]}
    assert got == {e["id"]: e["citation_f1"] for e in ref.per_record}
    assert report["scores"]["longbench_cite"] == pytest.approx(ref.scores)
    assert main(argv) == 0  # a third run: every answer from the cache
    assert fake.given == ref_fake.given
    info = json.loads((tmp_path / "out" / "report.json").read_text())["info"]["metrics"]
    assert info["longbench_cite"]["requests"] == 0
    assert info["longbench_cite"]["cache_hits"] == ref.info["requests"]


def unreadable_for(word: str):
    """LongBench-Cite's fake verdicts, except that a statement or sentence holding ``word``
    never gets a readable one."""
    def answer(prompt: str) -> str:
        text = block(prompt, "statement") or block(prompt, "sentence")
        return "I would rather not say." if word in text.split() else verdict(prompt)
    return answer


def small_records():
    return [rec("A", "hotpotqa", "Q?", st("alpha beta", "alpha beta gamma"),
                st(" omega", "omega x")),
            rec("B", "hotpotqa", "Q?", st("omega psi", "psi")),
            rec("C", "hotpotqa", "Q?", st("kappa", "kappa"))]


def test_an_unreadable_verdict_leaves_its_statement_unscored(server):
    """"omega" never gets a verdict: A's statement 1 and B's only statement are unscored; A is
    scored on its statement 0 alone (1, 1, 1, not a recall of 0.5), B is left out of the
    average (C scores 1 too), and the report names and counts both."""
    fake = Counting(unreadable_for("omega"))
    srv = server(answer=fake)
    res = longbench_cite(small_records(), None, judge="llm:m", base_url=srv.url)
    by_id = {e["id"]: e for e in res.per_record}
    assert (by_id["A"]["citation_recall"], by_id["A"]["citation_precision"]) == (1.0, 1.0)
    assert by_id["A"]["unscored"] == [1] and by_id["B"]["citation_f1"] is None
    assert res.info["unscored"] == [{"id": "A", "statement": 1}, {"id": "B", "statement": 0}]
    assert (res.info["unscored_statements"], res.info["unscored_records"]) == (2, 1)
    assert res.scores["longbench_cite_f1"] == 100.0
    rows = {(r["id"], r["statement"]): r for r in res.per_statement}
    assert rows[("A", 1)]["unscored"] and rows[("A", 1)]["recall"] is None
    assert len(rows[("A", 1)]["answers"]) == 2  # support and relevance, each's last answer
    table = Report({"longbench_cite": res}, {}).table()
    assert "unscored statements (no readable LLM verdict, left out of the scores): 2" in table
    assert "A#1, B#0" in table
    unreadable = [p for p in fake.given if "omega" in block(p, "statement").split()]
    assert len(unreadable) == 4 and all(fake.given[p] == TRIES for p in unreadable)
    again = longbench_cite(small_records(), None, judge="llm:m", base_url=srv.url)
    assert again.info["requests"] == 0 and again.info["unscored"] == res.info["unscored"]
    with pytest.raises(CitetrainError, match=r"record A, statement 1: no \[\[\.\.\.\]\] verdict"):
        longbench_cite(small_records(), None, judge="llm:m", base_url=srv.url, strict=True,
                       concurrency=1)


def test_eval_strict_flag_restores_the_error(tmp_path, server, capsys):
    srv = server(answer=unreadable_for("omega"))
    data = tmp_path / "small.json"
    data.write_text(json.dumps([{"idx": "B", "dataset": "hotpotqa", "query": "Q?",
                                 "prediction": "", "statements": [st("omega psi", "psi")]}]))
    suite = write_suite(tmp_path, srv.url, data)
    assert main(["eval", str(suite), "--no-progress", "--strict"]) == 2
    assert "record B, statement 0: no [[...]] verdict" in capsys.readouterr().err
    assert main(["eval", str(suite), "--no-progress"]) == 0
    assert "unscored statements" in capsys.readouterr().out


def test_dry_run_counts_requests_and_tokens(tmp_path, server, capsys):
    """Record B: "omega psi" cites "psi" (support, relevance); "kappa" cites nothing
    (need_citation, the response empty as the record's prediction is): three requests, their
    prompts laid out by hand; after a run, all three answers are cached."""
    srv = server(answer=LongBenchFake())
    data = tmp_path / "small.json"
    data.write_text(json.dumps([{"idx": "B", "dataset": "hotpotqa", "query": "Q?",
                                 "prediction": "", "statements": [st("omega psi", "psi"),
                                                                  st("kappa")]}]))
    suite = write_suite(tmp_path, srv.url, data)
    cited = "<question>\nQ?\n</question>\n\n<statement>\nomega psi\n</statement>\n\n" \
            "<snippet>\npsi\n</snippet>\n\n"
    need = "<question>\nQ?\n</question>\n\n<response>\n\n</response>\n\n<sentence>\nkappa\n</sentence>"
    chars = (len(SUPPORT_PROMPT) - 2 + len(cited)) + (len(RELEVANCE_PROMPT) - 2 + len(cited)) \
        + (len(NEED_CITATION_PROMPT) - 2 + len(need))
    tokens = -(-chars // 4)
    assert main(["eval", str(suite), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert srv.prompts == []  # nothing sent
    assert "tokens estimated as characters / 4, no tokenizer" in out
    assert (f"longbench_cite judge llm:m: 3 judge requests, ~{tokens:,} prompt tokens"
            in out), out
    assert "0 answers already cached" in out
    assert not (tmp_path / "out").exists()
    assert main(["eval", str(suite), "--no-progress"]) == 0
    assert len(srv.prompts) == 3
    capsys.readouterr()
    assert main(["eval", str(suite), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "longbench_cite judge llm:m: 0 judge requests, ~0 prompt tokens" in out
    assert "3 answers already cached" in out and len(srv.prompts) == 3
