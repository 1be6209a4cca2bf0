"""The in-loop scorer (:mod:`citetrain.train.scoring`) with LongBench-Cite's metric: a generator's
answers replace the records' outputs and are scored from their own marks."""
from __future__ import annotations

import pytest

from citetrain.io.formats import convert_longcite
from citetrain.nli.engine import NLIEngine
from citetrain.nli.registry import make_backend
from citetrain.train.scoring import IN_LOOP_DIRECTIONS, score_outputs


def test_a_generator_is_scored_with_longbench_cite_in_the_loop():
    """Lexical NLI. In the file, record r's second statement ("It snows.") cites a snippet
    without "snows" (support 0, so the file's recall is 0.5); the generated answer is one
    statement citing snippet 1, which holds all its words: support 1, relevance 1, so recall =
    precision = F1 = 1 and the averaged dataset row (hotpotqa, the only one) is 100."""
    item = {"idx": "r", "dataset": "hotpotqa", "query": "Where is Paris?", "prediction": "",
            "statements": [{"statement": "Paris is in France.",
                            "citation": [{"cite": "Paris is in France, on the Seine."}]},
                           {"statement": "It snows.", "citation": [{"cite": "It rains often."}]}]}
    record = convert_longcite(item, "r")[0]
    examples = [{"id": "r"}]
    engine = NLIEngine(make_backend("lexical"), progress=False)
    scores = score_outputs("generator", {"r": record}, examples, ["Paris is in France [1]."],
                           ["longbench_cite"], engine)
    assert scores["longbench_cite_rec"] == pytest.approx(100.0)
    assert scores["longbench_cite_prec"] == pytest.approx(100.0)
    assert scores["longbench_cite_f1"] == pytest.approx(100.0)
    assert not set(scores) & set(IN_LOOP_DIRECTIONS)  # a generator adds no id scores
