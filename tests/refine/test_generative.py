"""Generate-then-Refine: citations replaced, text byte-identical outside the marks."""
import random

import pytest

from citetrain.records import Doc, Record
from citetrain.refine.generative import refine_records, replace_citations
from citetrain.text.marks import strip_marks
from citetrain.text.statements import statements


def test_replace_citations_by_hand():
    out = "Paris is big [1][2]. It has a tower [3], built in 1889. Nothing here."
    got = replace_citations(out, [[2], [], [1, 3]])
    assert got == "Paris is big [2]. It has a tower, built in 1889. Nothing here [1][3]."
    assert replace_citations("It is his work [3] . Next [1].", [[2], None]) == \
        "It is his work [2] . Next [1]."
    assert strip_marks(got) == strip_marks(out)


def test_marks_after_a_closing_quote_take_the_space_before_them():
    # Punkt puts marks after '."' at the start of the next sentence (QuoteSum dev: 4 of 265
    # answers); removing them must remove the space before them too, as strip_marks does
    out = 'Known as "The Five-Day Battle." [1] The Regulators came [2]. He said "Amen." [3]'
    got = replace_citations(out, [[2], [1], [], []])
    assert got == 'Known as "The Five-Day Battle [2]." The Regulators came [1]. He said "Amen."'
    assert strip_marks(got) == strip_marks(out)
    kept = replace_citations(out, [None, [1], None, [4]])
    assert kept == 'Known as "The Five-Day Battle." The Regulators came [1]. He said "Amen." [4]'
    assert strip_marks(kept) == strip_marks(out)


def test_marks_go_before_a_spaced_closing_quote():
    # QuoteSum's text: a sentence ends '. "' with a space before the quote. Punkt keeps the quote
    # on the first sentence; a mark put between the period and the quote ('Nelson. [1] "') would
    # start the next sentence, so its ids would be read as the next statement's
    out = 'It was chosen by Nelson. " Dance " is his album.'
    before = [st.text for st in statements(out, first_line_only=False)]
    got = replace_citations(out, [[1], [2]])
    assert got == 'It was chosen by Nelson [1]. " Dance " is his album [2].'
    split = statements(got, first_line_only=False)
    assert [st.text for st in split] == before
    assert [st.citations for st in split] == [(1,), (2,)]
    assert strip_marks(got) == strip_marks(out)


def test_text_unchanged_outside_marks_on_every_expertqa_record(shared_data):
    from citetrain.io.readers import read_records

    rng = random.Random(0)
    n = 0
    for split in ("rand_val", "rand_test"):
        path = shared_data / "expertqa" / "annotated_splits" / f"{split}.jsonl"
        for rec in read_records(path, "expertqa").records:
            k = len(statements(rec.output, first_line_only=False))
            ids = [rng.sample(range(1, 6), rng.randint(0, 3)) for _ in range(k)]
            assert strip_marks(replace_citations(rec.output, ids)) == strip_marks(rec.output), rec.id
            n += 1
    assert n == 436


def test_refine_records_with_a_tiny_model_keeps_text_and_counts_dropped_ids():
    import torch
    from transformers import AutoModelForCausalLM

    from citetrain.models.tiny import TinySpec
    from citetrain.models.tiny import tiny_config, train_tokenizer

    recs = [Record(id=f"r{i}", question="Who?", docs=[Doc(title="a", text="Alpha fact."),
                                                       Doc(title="b", text="Beta fact.")],
                   output=f"Alpha holds [1]. Beta holds [2][1], case {i}.") for i in range(3)]
    tok = train_tokenizer([r.output + " [1][2][3] Citations: Statement" for r in recs] * 5, 300)
    torch.manual_seed(0)
    model = AutoModelForCausalLM.from_config(tiny_config(TinySpec(vocab_size=300), tok))
    refined, counts = refine_records(recs, model, tok, max_new_tokens=6, batch_size=2,
                                     progress=False)
    assert counts["statements"] == 6
    for a, b in zip(recs, refined):
        assert strip_marks(a.output) == strip_marks(b.output)
        assert all(1 <= c <= 2 for st in statements(b.output, first_line_only=False)
                   for c in st.citations)


def test_apply_refiner_outputs_counts_bad_outputs_and_keeps_going():
    from citetrain.refine.generative import apply_refiner_outputs

    rec = Record(id="r", question="q", docs=[Doc(text="a"), Doc(text="b")],
                 output="One [1]. Two [2]. Three [1][2].")
    refined, counts = apply_refiner_outputs([rec], [["[2][7]", "no idea", "[]"]])
    # [7] is out of range (dropped); "no idea" is not ids (citations kept); "[]" removes all
    assert refined[0].output == "One [2]. Two [2]. Three."
    assert counts == {"statements": 3, "ids": 1, "dropped_out_of_range": 1, "not_ids": 1,
                      "records_unchanged": 0}


def test_parse_ids_strict():
    from citetrain.text.prompts import parse_ids_strict

    assert parse_ids_strict(" [3][1][3]\nmore [4]") == [3, 1]
    assert parse_ids_strict("[]") == []
    assert parse_ids_strict("I think passage two") is None
    assert parse_ids_strict("") is None


def test_checkpoint_whose_base_model_is_absent_is_a_clear_error(tmp_path):
    import json as _json

    from citetrain.errors import CitetrainError
    from citetrain.models.loading import load_causal_lm
    from citetrain.models.tiny import train_tokenizer

    folder = tmp_path / "adapter"
    folder.mkdir()
    train_tokenizer(["some words to learn a tokenizer from"] * 20, 300).save_pretrained(folder)
    (folder / "adapter_config.json").write_text(_json.dumps(
        {"base_model_name_or_path": str(tmp_path / "gone"), "peft_type": "LORA"}))
    with pytest.raises(CitetrainError, match="base model .*gone.* cannot be loaded"):
        load_causal_lm(folder, role="--refiner")
    with pytest.raises(CitetrainError, match="is not a folder"):
        load_causal_lm(tmp_path / "nowhere", role="--refiner")
