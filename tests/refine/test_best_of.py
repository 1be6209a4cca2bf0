"""Best-of-N refinement (citetrain/refine/best_of.py, `citetrain refine --best-of N`): among the
sampled citation sets and the given one, the set with the highest SelfCite reward replaces the
statement's marks; on a scorer that copies from its context that is the passage holding the
statement's words."""
from __future__ import annotations

import json

import pytest

from citetrain.records import Record
from citetrain.refine.best_of import best_of_n_refine, load_best_of, model_sampler
from citetrain.rewards.selfcite import SelfCiteReward
from citetrain.text.marks import strip_marks
from tests.rewards.selfcite_models import DOCS, QUESTION, STATEMENT, copy_lm, tiny_llama, tokenizer

SECOND = "The harbour of Arlo is grey."


@pytest.fixture(scope="module")
def tok():
    return tokenizer()


def record(output: str) -> Record:
    return Record(id="r1", question=QUESTION, docs=DOCS, output=output)


def test_best_of_n_picks_the_passage_that_holds_the_statement(tok):
    rec = record(f"{STATEMENT[:-1]} [1]. {SECOND[:-1]} [3].")
    asked = []

    def sample(prompts):  # three samples per statement: two wrong sets, the right one, a non-id
        asked.extend(prompts)
        return [[" [3]", " [2]", " yes"], [" [1][7]", " [2]", " [3]"]]

    out, counts = best_of_n_refine([rec], sample, SelfCiteReward(copy_lm(len(tok)), tok))
    assert len(asked) == 2 and "Statement: The castle of Corin is violet [1]." in asked[0]
    assert out[0].output == f"{STATEMENT[:-1]} [2]. {SECOND[:-1]} [1]."
    assert strip_marks(out[0].output) == strip_marks(rec.output)
    assert counts["statements"] == 2 and counts["not_ids"] == 1 and counts["ids"] == 2


def test_a_tie_keeps_the_given_citations(tok):
    rec = record(f"{STATEMENT[:-1]} [2].")

    class Flat(SelfCiteReward):
        def case_rewards(self, cases):
            return [0.0] * len(cases)

    out, _ = best_of_n_refine([rec], lambda ps: [[" [1]", " [3]"]], Flat(None, tok))
    assert out[0].output == rec.output


def test_best_of_a_saved_causal_refiner_end_to_end(tmp_path, tok, capsys):
    from citetrain.cli.main import main

    folder = tmp_path / "refiner"
    tiny_llama(tok).save_pretrained(folder)
    tok.save_pretrained(folder)
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps(record(f"{STATEMENT[:-1]} [1].").model_dump()) + "\n")
    out = tmp_path / "out.jsonl"
    assert main(["refine", str(answers), "--refiner", str(folder), "--best-of", "3",
                 "--max-new-tokens", "4", "--out", str(out), "--no-progress"]) == 0
    assert "refined 1 records" in capsys.readouterr().out
    got = json.loads(out.read_text().splitlines()[0])["output"]
    assert strip_marks(got) == STATEMENT[:-1] + "." and got.count("[") <= 3
    # the sampler alone: three seeded samples per prompt, the same on a second call
    sample = model_sampler(tiny_llama(tok), tok, 3, max_new_tokens=3, seed=1)
    assert [len(x) for x in sample(["a", "b"])] == [3, 3] and sample(["a"]) == sample(["a"])


def test_best_of_asks_a_causal_refiner(tmp_path, capsys):
    from citetrain.cli.main import main
    from citetrain.errors import CitetrainError

    with pytest.raises(CitetrainError, match="--best-of: baseline:cover is a baseline refiner"):
        load_best_of("baseline:cover", 4)
    answers = tmp_path / "a.jsonl"
    answers.write_text(json.dumps(record(f"{STATEMENT[:-1]} [1].").model_dump()) + "\n")
    assert main(["refine", str(answers), "--refiner", "lexical", "--best-of", "2",
                 "--out", str(tmp_path / "o.jsonl")]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
