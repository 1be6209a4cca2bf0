"""The ``llm:`` NLI backend's answers go through the persistent answer cache as they arrive, and
``citetrain eval --dry-run`` counts its requests before anything is sent."""
from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from citetrain.cli.main import main
from citetrain.errors import CitetrainError
from citetrain.llm.estimate import RequestPlan
from citetrain.nli.cache import NLICache
from citetrain.nli.engine import NLIEngine
from citetrain.nli.llm import LLMNLI

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "predictions.jsonl"
PAIRS = [("Paris is in France.", "Paris is French."), ("The Moon is rock.", "The Moon is cheese."),
         ("It rained.", "It was wet.")]


def test_a_failed_batch_keeps_its_answers(tmp_path, server):
    """The second request of a batch fails: the NLI cache stores nothing of the batch, but the
    first answer is in the answer cache, so the rerun asks only for the other two."""
    given: Counter[str] = Counter()
    srv = server(script=[200, 400], answer=lambda p: given.update([p]) or "Attributable")
    nli = LLMNLI("m", base_url=srv.url, concurrency=1)
    with pytest.raises(CitetrainError, match="HTTP 400"):
        NLIEngine(nli, cache=NLICache(tmp_path / "nli.sqlite"), progress=False).results(PAIRS)
    assert sum(given.values()) == 1
    everything = sum(len(nli.prompt.format(claim=h, reference=p)) for p, h in PAIRS)
    assert nli.plan(PAIRS) == RequestPlan(2, everything - len(srv.prompts[0]), 1)
    again = LLMNLI("m", base_url=srv.url, concurrency=1)  # a new process, the same cache
    res = NLIEngine(again, cache=NLICache(tmp_path / "nli.sqlite"), progress=False).results(PAIRS)
    assert all(r.label for r in res) and set(given.values()) == {1} and len(given) == 3
    assert again.chat.stats.requests == 2 and again.chat.stats.cache_hits == 1
    off = LLMNLI("m", base_url=srv.url, chat_cache=False)
    off.predict(PAIRS[:1])
    assert given[srv.prompts[-1]] == 2  # no cache: asked again


def test_dry_run_counts_the_llm_nli_requests(tmp_path, server, capsys):
    """The dry run sends nothing; its count if every answer is attributable is what a run whose
    judge says so sends; afterwards every one of those answers is cached."""
    srv = server(answer=lambda p: "Attributable")
    suite = tmp_path / "suite.yaml"
    suite.write_text(json.dumps({"name": "x", "data": [{"path": str(EXAMPLES)}],
                                 "metrics": ["alce"], "nli": "llm:m",
                                 "nli_options": {"base_url": srv.url},
                                 "out": str(tmp_path / "out")}), encoding="utf-8")
    assert main(["eval", str(suite), "--dry-run"]) == 0
    out = capsys.readouterr().out
    yes = re.search(r"if every answer attributable\): ([\d,]+) judge requests, ~([\d,]+) prompt", out)
    assert yes and "(if no answer attributable)" in out and srv.prompts == []
    assert main(["eval", str(suite), "--no-progress"]) == 0
    requests, tokens = (int(g.replace(",", "")) for g in yes.groups())
    assert len(srv.prompts) == requests > 0
    chars = sum(len(p) for p in srv.prompts)
    assert tokens == -(-chars // 4)
    capsys.readouterr()
    assert main(["eval", str(suite), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert (f"NLI llm:m (if every answer attributable): 0 judge requests, ~0 prompt tokens (tokens "
            f"estimated as characters / 4, no tokenizer), {requests:,} answers already cached"
            in out), out
