"""The generative judge: parsing and scoring by hand, and a tiny model trained with
recipes/judge.yaml that trains, generates, parses and scores end to end."""
from pathlib import Path

import pytest

from citetrain.judges.generative import GenerativeJudge
from citetrain.records import Doc, Record

REPO = Path(__file__).resolve().parents[2]


class Scripted(GenerativeJudge):
    """A generative judge whose 'model' answers from a script."""

    def __init__(self, answers):
        super().__init__(None, None, name="scripted")
        self.answers, self.prompts = answers, []

    def generate(self, prompts, progress):
        self.prompts += list(prompts)
        return [self.answers[i] for i in range(len(prompts))]


def _block(k, rating, edits=""):
    body = f"\n{edits}\n" if edits else " N/A "
    return (f"<thinking> t </thinking>\n<editing sentence_id=\"{k}\">{body}</editing>\n"
            f"<rating sentence_id=\"{k}\"> {rating} </rating>")


def test_scores_by_hand_with_an_unparsable_statement():
    rec = Record(id="a", question="q", docs=[Doc(text="x"), Doc(text="y")],
                 output="One holds [1]. Two holds [2]. Three holds [1]. Four holds [2].")
    empty = Record(id="b", question="q", docs=[], output="")
    drop = '<delete citation="2"> delete REASON 1 </delete>'
    out = "\n".join([_block(1, 5), _block(2, 3, drop), "<thinking> lost </thinking>", _block(4, 1)])
    judge = Scripted([out])
    res = judge.score([rec, empty]).result
    assert len(judge.prompts) == 1 and "Four holds" in judge.prompts[0]
    rows = res.per_statement
    assert [r["rating"] for r in rows] == [1.0, 0.5, None, 0.0]  # ITERCOE (r - 1) / 4
    assert rows[1]["edits"] == [("delete-misleading", 2)]
    assert rows[2]["status"] != "ok" and res.info["unparsed"] == 1
    assert res.scores["citeeval_full"] == pytest.approx(50.0)  # (1 + 0.5 + 0) / 3
    assert res.scores["citeeval_cited"] == pytest.approx(50.0)
    assert res.info["skipped_empty_output"] == 1


@pytest.fixture(scope="module")
def judge_data(tmp_path_factory) -> Path:
    from citetrain.builders.pipeline import build
    from citetrain.builders.spec import BuildSpec

    root = tmp_path_factory.mktemp("judgedata")
    spec = BuildSpec.model_validate({
        "name": "j", "kind": "judge", "sources": [{"synthetic": {"n": 24, "seed": 3}}],
        "nli": "lexical", "max_subset": 2, "split": {"validation": 0.25}, "out": str(root / "built")})
    build(spec, progress=False, log=lambda s: None)
    return root / "built" / "dataset"


def test_tiny_generative_judge_end_to_end(judge_data, tmp_path):
    from citetrain.io.readers import read_records
    from citetrain.judges.registry import make_judge
    from citetrain.train.recipe import load_recipe
    from citetrain.text.statements import statements
    from citetrain.runner import run_recipe as train

    sets = {"model.name_or_path": "null", "model.gradient_checkpointing": "false",
            "model.tiny": "{family: qwen2, hidden_size: 32, intermediate_size: 64, num_hidden_layers: 1, "
                          "num_attention_heads: 2, num_key_value_heads: 1, vocab_size: 600}",
            "data.dataset": str(judge_data), "data.build": "null", "data.max_length": 4096,
            "train.output_dir": str(tmp_path / "run"), "train.max_steps": 2, "train.save_steps": 2,
            "train.batch_size": 1, "train.grad_accum": 1, "train.use_cpu": "true",
            "train.warmup_ratio": "null", "eval.enabled": "false", "eval.best_metric": "null",
            "logging.report_to": "[none]"}
    final = train(load_recipe(REPO / "recipes" / "judge.yaml", [f"{k}={v}" for k, v in sets.items()]))["final"]
    records = read_records(judge_data.parent / "records.jsonl").records[:3]
    judge = make_judge(f"generative:{final}", max_new_tokens=16, batch_size=3)
    res = judge.score(records, progress=False)
    rows = res.result.per_statement
    n = sum(len(statements(r.output, first_line_only=False)) for r in records)
    assert len(rows) == n > 0
    # a 2-step model writes no readable blocks: each statement says so, and the file is scored
    assert all((r["status"] == "ok") == (r["rating"] is not None) for r in rows)
    assert all(r["reason"] for r in rows if r["status"] != "ok")
    assert res.result.info["unparsed"] == sum(r["rating"] is None for r in rows)
    assert set(res.result.scores) == {"citeeval_full", "citeeval_cited"}
    assert res.throughput > 0


def test_a_judge_as_an_nli_backend():
    from citetrain.judges.as_nli import JudgeNLI

    backend = JudgeNLI(Scripted([_block(1, 5), _block(1, 2), "nothing readable"]))
    got = backend.predict([("Alpha.", "Alpha holds."), ("Beta.", "Alpha holds."), ("x", "y")])
    assert [r.prob for r in got] == [1.0, 0.25, 0.0]  # unreadable -> no support
    assert [r.label for r in got] == [True, False, False]
    assert '<citation sentence_id="1", sentence="Alpha holds."> 1 </citation>' in backend.judge.prompts[0]
