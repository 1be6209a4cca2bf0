"""TRUE-style seq2seq NLI on a tiny random T5, and the shared HF loading helpers."""
from __future__ import annotations

import json
import shutil

import pytest
import torch

from citetrain.errors import CitetrainError
from citetrain.nli.base import NLIBackend
from citetrain.nli.engine import NLIEngine
from citetrain.nli.hf import (
    choose_device, choose_dtype, fingerprint, load_pretrained, resolve_source, snapshot_commit,
)
from citetrain.nli.seq2seq import Seq2SeqNLI, true_input, truncate_premise
from tests.nli.tiny_models import build_t5

PAIRS = [
    ("Title: Paris\nParis is the capital of France .", "Paris is in France ."),
    ("the cat sat on the mat . the dog ran in the park .", "a cat sat ."),
    ("water boils at 100 degrees .", "water freezes at 0 degrees ."),
    ("the dog ran", "the dog slept at home ."),
    ("Title: Moon\nThe Moon orbits the Earth every 27 days , 1969 .", "The Moon orbits the Earth ."),
]


@pytest.fixture(scope="module")
def t5_dir(tmp_path_factory):
    return build_t5(tmp_path_factory.mktemp("models") / "tiny-t5", decisive=8.0)


@pytest.fixture(scope="module")
def nli(t5_dir):
    return Seq2SeqNLI(str(t5_dir), device="cpu")


def test_backend_protocol_and_identity(nli, t5_dir):
    assert isinstance(nli, NLIBackend) and nli.is_baseline is False
    assert nli.model_id == "tiny-t5" and nli.revision == fingerprint(t5_dir)
    assert nli.device == "cpu" and nli.dtype == torch.float32 and not nli.model.training
    assert "tiny-t5" in repr(nli)


def test_input_is_alce_format_when_short(nli):
    p, h = PAIRS[0]
    assert true_input(p, h) == f"premise: {p} hypothesis: {h}"
    assert nli.encode([(p, h)])[0] == nli.tokenizer(f"premise: {p} hypothesis: {h}")["input_ids"]


def test_batched_equals_one_at_a_time(nli):
    batched = nli.predict(PAIRS)
    single = [nli.predict([pair])[0] for pair in PAIRS]
    for b, s in zip(batched, single):
        assert b.prob == pytest.approx(s.prob, abs=1e-5) and b.label == s.label


def test_int8_reads_each_pair_alone_so_batching_changes_nothing(t5_dir):
    int8 = Seq2SeqNLI(str(t5_dir), device="cpu", dtype="int8")
    assert int8.rows_alone and "+int8pc" in int8.revision
    batched = int8.predict(PAIRS)
    assert [(r.prob, r.label) for r in batched] == [
        (r.prob, r.label) for pair in PAIRS for r in int8.predict([pair])]


def test_prob_and_label_match_first_generated_token(nli):
    """ALCE generates greedily; its first token decides. prob = softmax('1') at step one."""
    labels = set()
    for (p, h), res in zip(PAIRS, nli.predict(PAIRS)):
        ids = torch.tensor([nli.tokenizer(true_input(p, h))["input_ids"]])
        gen = nli.model.generate(ids, max_new_tokens=1, do_sample=False, num_beams=1,
                                 output_scores=True, return_dict_in_generate=True)
        first = int(gen.sequences[0, 1])  # sequences start with the decoder start token
        assert res.label == (first == nli.one_id)
        assert res.prob == pytest.approx(float(torch.softmax(gen.scores[0][0], -1)[nli.one_id]),
                                         abs=1e-5)
        labels.add(res.label)
    assert labels == {True, False}  # the "decisive" random head answers both ways on PAIRS


def test_truncation_drops_the_end_of_the_premise(nli, t5_dir):
    short = Seq2SeqNLI(str(t5_dir), device="cpu", max_length=12)
    tok = nli.tokenizer
    premise = "the cat sat on the mat . the dog ran in the park ."
    ids = short.encode([(premise, "a cat sat .")])[0]
    # "premise : the cat sat" (5 tokens) + "hypothesis : a cat sat ." (6) + "</s>" (1) = 12
    assert tok.convert_ids_to_tokens(ids) == [
        "premise", ":", "the", "cat", "sat", "hypothesis", ":", "a", "cat", "sat", ".", "</s>"]
    assert short.revision == nli.revision + "+len12"
    assert len(short.encode([("x " * 500, "y")])[0]) == 12


def test_truncate_premise_keeps_specials_and_cuts_long_hypotheses():
    # ids 1..6: two premise tokens (start < 10), three hypothesis tokens, then EOS (special)
    ids, offs = [1, 2, 3, 4, 5, 6], [(0, 3), (4, 9), (10, 12), (13, 15), (16, 18), (0, 0)]
    special = [0, 0, 0, 0, 0, 1]
    assert truncate_premise(ids, offs, special, 10, 6) == ids
    assert truncate_premise(ids, offs, special, 10, 5) == [1, 3, 4, 5, 6]
    assert truncate_premise(ids, offs, special, 10, 4) == [3, 4, 5, 6]
    assert truncate_premise(ids, offs, special, 10, 3) == [3, 4, 6]


def test_threshold_decides_and_tags_revision(t5_dir, nli):
    lenient = Seq2SeqNLI(str(t5_dir), device="cpu", threshold=0.0)
    assert all(r.label for r in lenient.predict(PAIRS))
    assert lenient.revision == nli.revision + "+t0"


def test_engine_over_seq2seq_dedups(nli):
    engine = NLIEngine(nli, progress=False)
    got = engine.results(PAIRS + PAIRS[:2])
    assert engine.stats.model_pairs == len(PAIRS)
    assert [r.label for r in got[:len(PAIRS)]] == [r.label for r in nli.predict(PAIRS)]


def test_bpe_tokenizer_with_metaspace_one(tmp_path):
    built = build_t5(tmp_path / "bpe-t5", kind="bpe", vocab_size=200)
    bpe = Seq2SeqNLI(str(built), device="cpu")
    assert bpe.tokenizer.convert_ids_to_tokens([bpe.one_id]) == ["▁1"]
    assert len(bpe.predict(PAIRS[:2])) == 2


def test_fingerprint_follows_the_weights(t5_dir, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(t5_dir, copy)
    assert fingerprint(copy) == fingerprint(t5_dir)  # same files, another place
    weights = copy / "model.safetensors"
    blob = bytearray(weights.read_bytes())
    blob[-1] ^= 0xFF
    weights.write_bytes(bytes(blob))
    assert fingerprint(copy) != fingerprint(t5_dir)
    assert resolve_source(copy).model_id == "copy" and resolve_source(copy).local


def test_model_without_a_one_token_is_refused(t5_dir, tmp_path):
    bad = tmp_path / "no-one"
    shutil.copytree(t5_dir, bad)
    tok = json.loads((bad / "tokenizer.json").read_text())
    vocab = tok["model"]["vocab"]
    vocab["one"] = vocab.pop("1")
    (bad / "tokenizer.json").write_text(json.dumps(tok))
    with pytest.raises(CitetrainError, match="'1' is not a single vocabulary token"):
        Seq2SeqNLI(str(bad), device="cpu")


def test_bad_sources_and_options(t5_dir, tmp_path):
    with pytest.raises(CitetrainError, match="no such model directory"):
        Seq2SeqNLI(str(tmp_path / "missing"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(CitetrainError, match="no config.json"):
        Seq2SeqNLI(str(tmp_path / "empty"))
    with pytest.raises(CitetrainError, match="unknown option"):
        Seq2SeqNLI(str(t5_dir), base_url="http://x")
    with pytest.raises(CitetrainError, match="cannot load model"):
        Seq2SeqNLI("nobody/not-cached-model")


def test_hub_id_revision_from_offline_snapshot(tmp_path):
    commit = "0123456789abcdef0123456789abcdef01234567"
    repo = tmp_path / "models--org--true-nli"
    (repo / "snapshots" / commit).mkdir(parents=True)
    (repo / "snapshots" / commit / "config.json").write_text("{}")
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    assert snapshot_commit("org/true-nli", cache_dir=tmp_path) == commit
    assert snapshot_commit("org/true-nli", "v2", cache_dir=tmp_path) is None
    assert snapshot_commit("org/other", cache_dir=tmp_path) is None
    assert snapshot_commit("org/x", "f" * 40) == "f" * 40  # a commit is its own revision
    src = resolve_source("org/not-cached", "v1.0")
    assert (src.model_id, src.revision, src.local) == ("org/not-cached", "v1.0", False)


def test_device_and_dtype_choice():
    assert choose_device("cpu") == "cpu"
    assert choose_device("auto") == ("cuda" if torch.cuda.is_available() else "cpu")
    assert choose_dtype("auto", "cpu") == torch.float32
    assert choose_dtype("bf16", "cpu") == torch.bfloat16 and choose_dtype(torch.float16) == torch.float16
    with pytest.raises(CitetrainError, match="unknown dtype"):
        choose_dtype("int3")


def test_trust_remote_code_off_unless_asked(t5_dir, monkeypatch):
    import transformers

    seen = []

    class Spy:
        @staticmethod
        def from_pretrained(location, **kwargs):
            seen.append(kwargs["trust_remote_code"])
            return torch.nn.Linear(1, 1)

    monkeypatch.setattr(transformers.AutoTokenizer, "from_pretrained", Spy.from_pretrained)
    source = resolve_source(t5_dir)
    load_pretrained(Spy, source, device="cpu", dtype=torch.float32)
    load_pretrained(Spy, source, device="cpu", dtype=torch.float32, trust_remote_code=True)
    assert seen == [False, False, True, True]  # tokenizer then model, each time


def test_registry_makes_a_seq2seq_engine(t5_dir, tmp_path):
    from citetrain.nli.registry import make_engine

    engine = make_engine(f"seq2seq:{t5_dir}", cache=str(tmp_path / "c.sqlite"), progress=False,
                         device="cpu", max_length=64)
    assert isinstance(engine.backend, Seq2SeqNLI) and engine.cache is not None
    assert engine.name == f"tiny-t5@{fingerprint(t5_dir)}+len64"
    assert len(engine.results(PAIRS)) == len(PAIRS)
