"""The cross-encoder judge (``kind: crossencoder``): pairs split by group, recipe rules, the
``pkg:`` model resolver, training end to end on a tiny BERT, resuming, and learning a toy task."""
from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from citetrain.config import ConfigError
from citetrain.errors import CitetrainError
from citetrain.train.recipe import load_recipe, validate_recipe

WORDS = [f"w{i}" for i in range(12)]


def toy_rows(n: int, seed: int = 0) -> list[dict]:
    """AttributionBench rows: attributable iff the claim's word appears in the reference."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        premise = rng.sample(WORDS, 4)
        word = rng.choice(premise) if i % 2 == 0 else rng.choice(
            [w for w in WORDS if w not in premise])
        rows.append({"id": f"ab{i}", "question": "q", "claim": f"it says {word}",
                     "references": [" ".join(premise)], "src_dataset": "toy",
                     "attribution_label": "attributable" if i % 2 == 0 else "not attributable"})
    return rows


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def wice_oracle_rows(n_claims: int) -> list[dict]:
    """WiCE oracle-chunk rows: three chunks per claim, one group per claim."""
    labels = ["supported", "partially_supported", "not_supported"]
    return [{"label": labels[c % 3], "claim": f"claim {c} says w{c % 12}",
             "evidence": [f"chunk {k} of w{(c + k) % 12} ."],
             "meta": {"id": f"claim{c}", "chunk_idx": k}}
            for c in range(n_claims) for k in range(3)]


def build_tiny_bert(directory: Path, corpus: list[str]) -> Path:
    """A random 2-layer BERT (hidden 32) and a WordPiece tokenizer trained on ``corpus``."""
    import torch
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import BertConfig, BertForSequenceClassification, PreTrainedTokenizerFast

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.train_from_iterator(corpus, trainers.WordPieceTrainer(vocab_size=300,
                                                              special_tokens=specials))
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]",
                                        unk_token="[UNK]", cls_token="[CLS]", sep_token="[SEP]",
                                        mask_token="[MASK]", model_max_length=128)
    config = BertConfig(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2,
                        num_attention_heads=4, intermediate_size=64, max_position_embeddings=128,
                        pad_token_id=tokenizer.pad_token_id)
    torch.manual_seed(0)
    BertForSequenceClassification(config).save_pretrained(directory)
    tokenizer.save_pretrained(directory)
    return directory


def recipe_data(base: Path, labelled: list[str], tmp: Path, **train) -> dict:
    return {"name": "ce", "kind": "crossencoder", "method": "full",
            "model": {"name_or_path": str(base)}, "lora": {"enabled": False},
            "data": {"dataset": str(tmp / "pairs" / "dataset"), "max_length": 48},
            "crossencoder": {"labelled": labelled, "validation_fraction": 0.3},
            "train": {"output_dir": str(tmp / "run"), "batch_size": 8, "logging_steps": 1,
                      "learning_rate": 1e-3, "save_steps": 2, "use_cpu": True,
                      "max_steps": 4, **train},
            "eval": {"steps": 2, "subset": 200, "batch_size": 32}}


# --- pairs -------------------------------------------------------------------------------------

def test_pairs_split_by_group_with_manifest(tmp_path):
    from datasets import load_from_disk

    from citetrain.judge_training.pairs import build_pairs

    wice = write_jsonl(tmp_path / "wice.jsonl", wice_oracle_rows(30))
    ab = write_jsonl(tmp_path / "ab.jsonl", toy_rows(40))
    man = build_pairs([f"wice_oracle:{wice}", str(ab), str(ab)], tmp_path / "out" / "dataset",
                      0.3, seed=1)
    dd = load_from_disk(str(tmp_path / "out" / "dataset"))
    assert set(dd) == {"train", "validation"}
    assert dd["train"].column_names == ["premise", "hypothesis", "label", "group", "source"]
    assert not set(dd["train"]["group"]) & set(dd["validation"]["group"])
    assert not set(dd["train"]["hypothesis"]) & set(dd["validation"]["hypothesis"])
    assert len(dd["train"]) + len(dd["validation"]) == 90 + 40  # the repeated file adds nothing
    assert set(dd["train"]["label"]) <= {0, 1, 2}
    assert {s.split(":")[0] for s in dd["train"]["source"]} == {"wice_oracle", "attributionbench"}
    chunks = [g for g in dd["train"]["group"] if g.startswith("claim")]
    assert all(chunks.count(g) == 3 for g in chunks)  # a claim's chunks stay together
    assert man["sources"][2]["pairs"] == 0 and man["sources"][2]["duplicates"] == 40
    assert len(man["sources"][0]["sha256"]) == 64 and man["split_seed"] == 1
    total = sum(sum(c.values()) for c in man["counts"].values())
    assert total == 130 and man["counts"]["train"]["supported"] > 0
    assert json.loads((tmp_path / "out" / "manifest.json").read_text()) == man
    assert not list((tmp_path / "out").glob("*.tmp"))


def test_pairs_missing_file_is_a_clear_error(tmp_path):
    from citetrain.judge_training.pairs import build_pairs

    with pytest.raises(CitetrainError, match="crossencoder.labelled: .*nope.jsonl not found"):
        build_pairs([str(tmp_path / "nope.jsonl")], tmp_path / "d")


# --- recipe rules ------------------------------------------------------------------------------

def _errors(data: dict) -> list[str]:
    with pytest.raises(ConfigError) as e:
        validate_recipe(data, "r.yaml")
    return e.value.errors


def test_crossencoder_recipe_rules(tmp_path):
    ok = recipe_data(tmp_path / "base", ["x.jsonl"], tmp_path)
    validate_recipe(ok)
    no_data = {**ok, "crossencoder": {**ok["crossencoder"], "labelled": None}}
    assert any("needs crossencoder.labelled" in e for e in _errors(no_data))
    qlora = {**ok, "method": "qlora", "quantization": {"load_in_4bit": True}, "lora": {}}
    assert any("method full or lora, not qlora" in e for e in _errors(qlora))
    tiny = {**ok, "model": {"tiny": {}}}
    assert any("needs model.name_or_path" in e for e in _errors(tiny))
    steps = {**ok, "train": {**ok["train"], "save_steps": 3}}
    assert any("must be a multiple of eval.steps (2)" in e for e in _errors(steps))
    both = {**no_data, "method": "qlora", "quantization": {"load_in_4bit": True}, "lora": {}}
    assert len(_errors(both)) >= 2  # every broken rule at once
    c = ok["crossencoder"]
    assert any("num_layers" in e for e in _errors({**ok, "crossencoder": {**c, "num_layers": 0}}))
    both_ways = _errors({**ok, "crossencoder": {**c, "layers": [0, 2], "num_layers": 2}})
    assert "crossencoder.layers and crossencoder.num_layers both choose layers: set one" in both_ways
    for bad in ([2, 0], [0, 0, 1], []):
        assert any("ascending order, each once" in e
                   for e in _errors({**ok, "crossencoder": {**c, "layers": bad}}))


def test_existing_pairs_dataset_is_enough(tmp_path):
    from citetrain.judge_training.pairs import build_pairs

    build_pairs([str(write_jsonl(tmp_path / "ab.jsonl", toy_rows(20)))], tmp_path / "pairs" / "dataset")
    data = recipe_data(tmp_path / "base", [], tmp_path)
    data["crossencoder"]["labelled"] = None
    validate_recipe(data)


def test_labelled_paths_resolve_from_the_recipe_folder(tmp_path, monkeypatch):
    import yaml

    (tmp_path / "recipes").mkdir()
    write_jsonl(tmp_path / "ab.jsonl", toy_rows(4))
    data = recipe_data(tmp_path / "base", ["attributionbench:ab.jsonl", "ab.jsonl"], tmp_path)
    path = tmp_path / "recipes" / "r.yaml"
    path.write_text(yaml.safe_dump(data))
    monkeypatch.chdir(tmp_path / "recipes")
    r = load_recipe(path)
    assert r.crossencoder.labelled == [f"attributionbench:{tmp_path / 'ab.jsonl'}", str(tmp_path / "ab.jsonl")]


# --- pkg: model resolver -----------------------------------------------------------------------

def test_pkg_resolver_finds_the_model_folder(tmp_path, monkeypatch):
    from citetrain.models.package_paths import resolve_model_path

    pkg = tmp_path / "fake_model_pkg"
    (pkg / "model").mkdir(parents=True)
    (pkg / "__init__.py").write_text("raise RuntimeError('never imported')\n")
    (pkg / "model" / "config.json").write_text("{}")
    (pkg / "model" / "model.safetensors").write_bytes(b"")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert resolve_model_path("pkg:fake_model_pkg") == str(pkg / "model")
    assert resolve_model_path("pkg:fake_model_pkg/model") == str(pkg / "model")
    assert resolve_model_path("org/model") == "org/model"
    with pytest.raises(CitetrainError, match="holds no config.json"):
        resolve_model_path("pkg:fake_model_pkg/other")
    with pytest.raises(CitetrainError, match="'no_such_pkg_xyz' is not installed .*pip install "
                                             "no-such-pkg-xyz"):
        resolve_model_path("pkg:no_such_pkg_xyz")


def test_in_loop_score_is_the_expected_support_level():
    """The in-loop measure ranks P(supported) + P(partial)/2 (by hand: .55 / .50 / .305 for the
    full / partial / no pair: every pair of classes in order, mean 1.0; P(supported) alone would
    put the partial pair (.1) under the no pair (.3)); a two-way head ranks P(supported)."""
    import numpy as np
    from types import SimpleNamespace

    from citetrain.judge_training.trainer import metrics_fn

    probs = np.array([[0.4, 0.1, 0.5], [0.1, 0.8, 0.1], [0.69, 0.01, 0.3]])  # no, partial, full
    pred = SimpleNamespace(predictions=np.log(probs), label_ids=np.array([2, 1, 0]))
    out = metrics_fn(["g", "g", "g"])(pred)
    assert out["roc_auc"] == out["roc_auc_mean"] == 1.0 and out["ps_vs_ns"] == 1.0
    two = np.log(np.array([[0.2, 0.8], [0.6, 0.4], [0.9, 0.1]]))  # not_supported, supported
    out = metrics_fn(["a", "b", "c"], {0: "not_supported", 1: "supported"})(
        SimpleNamespace(predictions=two, label_ids=np.array([1, 0, 1])))
    assert out["roc_auc"] == 0.5  # .8 > .4 but .1 < .4
    assert "roc_auc_sources" not in out  # no sources given


def test_roc_auc_sources_is_the_mean_of_each_sources_figure():
    """Pooled, the binary set's negative (.45, "not attributable" read as level 0) sits above the
    three-level set's partial pair (.3), so ps_vs_ns is 1/2; per source each ranks its pairs."""
    import numpy as np
    from types import SimpleNamespace

    from citetrain.judge_training.trainer import metrics_fn

    # expected levels: w full .9, w partial .3, w no .1, ab attributable .6, ab not .45
    probs = np.array([[0.05, 0.1, 0.85], [0.5, 0.4, 0.1], [0.85, 0.1, 0.05],
                      [0.3, 0.2, 0.5], [0.35, 0.4, 0.25]])
    pred = SimpleNamespace(predictions=np.log(probs), label_ids=np.array([2, 1, 0, 2, 0]))
    sources = ["wice:a", "wice:a", "wice:a", "attributionbench:b", "attributionbench:b"]
    out = metrics_fn(list("abcde"), None, sources)(pred)
    assert out["ps_vs_ns"] == 0.5  # the partial pair (.3) above w's no (.1), under ab's (.45)
    assert out["roc_auc_sources"] == 1.0  # each source alone ranks its pairs right
    out = metrics_fn(list("abcde"), None, sources[:3] + ["wice:a"] * 2)(pred)
    assert "roc_auc_sources" not in out  # one format: the pooled figure is the source's


# --- training ----------------------------------------------------------------------------------

def test_training_writes_a_model_the_classifier_backend_loads(tiny_bert, tmp_path):
    from citetrain.nli.registry import make_engine
    from citetrain.runner import run_recipe as train

    ab = write_jsonl(tmp_path / "ab.jsonl", toy_rows(40))
    wice = write_jsonl(tmp_path / "wice.jsonl", wice_oracle_rows(10))
    data = recipe_data(tiny_bert, [f"attributionbench:{ab}", f"wice_oracle:{wice}"], tmp_path)
    summary = train(validate_recipe(data))
    final = Path(summary["final"])
    assert summary["steps"] == 4 and len(summary["evals"]) == 2
    assert all("eval_roc_auc" in h and "eval_spearman" in h for h in summary["evals"])
    assert summary["best_checkpoint"] and summary["score"] == "P(supported) + P(partially_supported)/2"
    cfg = json.loads((final / "config.json").read_text())
    assert cfg["id2label"] == {"0": "not_supported", "1": "partially_supported", "2": "supported"}
    assert json.loads((final / "tokenizer_config.json").read_text())["model_max_length"] == 48
    for ckpt in (tmp_path / "run").glob("checkpoint-*"):  # a checkpoint reads premises as final does
        assert json.loads((ckpt / "tokenizer_config.json").read_text())["model_max_length"] == 48
    assert list((tmp_path / "run").glob("checkpoint-*"))
    assert cfg["citetrain_premise"] == "select"  # the recipe's default, read back at inference
    assert (tmp_path / "run" / "train_summary.json").is_file()
    assert not (tmp_path / "run" / "final.tmp").exists()
    engine = make_engine(f"classifier:{final}", cache=False, progress=False, device="cpu")
    scores = engine.score([("w1 w2 w3", "it says w2"), ("w1 w2 w3", "it says w9")])
    assert len(scores) == 2 and all(0.0 <= s <= 1.0 for s in scores)
    assert engine.backend.three_way
    assert engine.backend.premise == "select" and engine.backend.revision.endswith("+sel")

    again = train(validate_recipe({**data, "train": {**data["train"], "max_steps": 6}}))
    assert again["resumed_from"] and again["resumed_from"].endswith("checkpoint-4")
    assert again["steps"] == 6


def test_the_card_names_the_model_as_the_recipe_gave_it(tiny_bert, tmp_path, monkeypatch):
    """A ``pkg:`` model is named ``pkg:NAME`` in the summary and the card's ``base_model``, not by
    the folder it resolved to in this machine's site-packages."""
    import shutil

    from citetrain.runner import run_recipe as train

    shutil.copytree(tiny_bert, tmp_path / "fake_judge_pkg" / "model")
    (tmp_path / "fake_judge_pkg" / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    ab = write_jsonl(tmp_path / "ab.jsonl", toy_rows(40))
    data = recipe_data(tiny_bert, [f"attributionbench:{ab}"], tmp_path, max_steps=2)
    data["model"] = {"name_or_path": "pkg:fake_judge_pkg"}
    summary = train(validate_recipe(data))
    assert summary["base_model"] == "pkg:fake_judge_pkg"
    card = (Path(summary["final"]) / "README.md").read_text()
    assert "base_model: pkg:fake_judge_pkg\n" in card and str(tmp_path / "fake_judge_pkg") not in card


def test_lora_training_saves_a_merged_model(tiny_bert, tmp_path):
    from transformers import AutoModelForSequenceClassification

    from citetrain.runner import run_recipe as train

    ab = write_jsonl(tmp_path / "ab.jsonl", toy_rows(24))
    data = recipe_data(tiny_bert, [str(ab)], tmp_path, max_steps=2)
    data.update(method="lora", lora={"r": 4, "alpha": 8, "target_modules": ["query", "value"]})
    summary = train(validate_recipe(data))
    model = AutoModelForSequenceClassification.from_pretrained(summary["final"])
    assert not any("lora" in n for n, _ in model.named_parameters())
    assert model.config.id2label == {0: "not_supported", 1: "supported"}  # binary data: 2-way head


def test_same_seed_same_model_other_seed_another(tiny_bert, tmp_path):
    """The fresh head and the LoRA matrices are drawn from ``train.seed``: two runs of one recipe
    end with the same weights (an unseeded head made the quickstart's refiner train differently
    on every run, sometimes never leaving the label prior)."""
    import torch
    from transformers import AutoModelForSequenceClassification

    from citetrain.runner import run_recipe as train

    ab = write_jsonl(tmp_path / "ab.jsonl", toy_rows(24))

    def weights(name: str, seed: int) -> dict:
        data = recipe_data(tiny_bert, [str(ab)], tmp_path / name, max_steps=2, seed=seed)
        data.update(method="lora", lora={"r": 4, "alpha": 8, "target_modules": ["query", "value"]})
        data["eval"]["enabled"] = False
        model = AutoModelForSequenceClassification.from_pretrained(train(validate_recipe(data))["final"])
        return {k: v.clone() for k, v in model.state_dict().items()}

    a, b, c = weights("a", 0), weights("b", 0), weights("c", 1)
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert not torch.equal(a["classifier.weight"], c["classifier.weight"])


def test_head_is_two_way_on_binary_data_and_three_way_with_partial_labels():
    from citetrain.judge_training.trainer import head_labels

    assert head_labels([0, 2, 2, 0]) == ({0: "not_supported", 1: "supported"}, {0: 0, 2: 1})
    names, levels = head_labels([0, 1, 2])
    assert names == {0: "not_supported", 1: "partially_supported", 2: "supported"}
    assert levels == {0: 0, 1: 1, 2: 2}


def cue_rows(n: int, seed: int = 0) -> list[dict]:
    """AttributionBench rows a tiny model can learn in seconds: a supporting reference holds the
    claim's word among words of one set, a non-supporting one only words of another set."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        word = rng.choice(WORDS[:6])
        good = i % 2 == 0
        ref = [word, *rng.sample(WORDS[:6], 2)] if good else rng.sample(WORDS[6:], 3)
        rng.shuffle(ref)
        rows.append({"id": f"cue{i}", "question": "q", "claim": f"it says {word}",
                     "references": [" ".join(ref)], "src_dataset": "toy",
                     "attribution_label": "attributable" if good else "not attributable"})
    return rows


def test_learns_a_toy_support_task(tiny_bert, tmp_path):
    """Well above chance on held-out claims after a few seconds of CPU training."""
    from citetrain.runner import run_recipe as train

    ab = write_jsonl(tmp_path / "ab.jsonl", cue_rows(300, seed=3))
    data = recipe_data(tiny_bert, [str(ab)], tmp_path, max_steps=60, batch_size=16,
                       learning_rate=3e-3, save_steps=60, warmup_steps=5)
    data["eval"] = {"steps": 60, "subset": 200, "batch_size": 64}
    summary = train(validate_recipe(data))
    assert summary["evals"][-1]["eval_roc_auc"] > 0.9, summary["evals"]


def test_selected_evidence_is_what_training_reads(tiny_bert, tmp_path):
    """With ``crossencoder.premise: select`` a long premise is reduced to the sentence that holds the
    claim's word; with ``cut`` its first tokens are kept and the evidence is lost."""
    import datasets
    from transformers import AutoTokenizer

    from citetrain.judge_training.trainer import tokenize

    tok = AutoTokenizer.from_pretrained(tiny_bert)
    filler = " ".join(f"w{i % 6} w{(i + 1) % 6} ." for i in range(30))
    rows = {"premise": [filler + " w9 w10 w11 ."], "hypothesis": ["it says w10"], "label": [2],
            "group": ["g"], "source": ["toy"]}
    data = datasets.Dataset.from_dict(rows)
    sel, _ = tokenize(data, tok, 24, "train", "select")
    cut, _ = tokenize(data, tok, 24, "train", "cut")
    text = tok.decode(sel[0]["input_ids"], skip_special_tokens=True)
    assert "w10" in text.split()[: -3] and len(sel[0]["input_ids"]) <= 24
    assert "w10" not in tok.decode(cut[0]["input_ids"], skip_special_tokens=True).split()[:-3]


@pytest.mark.parametrize("mode", ["uncovered", "coverage"])
def test_a_hint_trained_model_is_read_with_its_hint(tiny_bert, tmp_path, mode):
    """``crossencoder.hint``: saved in the config; the classifier backend and the pair refiner's
    in-memory reader feed the model the statements with the hint, as training did."""
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from citetrain.nli.registry import make_engine
    from citetrain.refine.pairs import model_support
    from citetrain.runner import run_recipe as train

    ab = write_jsonl(tmp_path / "ab.jsonl", toy_rows(24))
    data = recipe_data(tiny_bert, [str(ab)], tmp_path, max_steps=2)
    data["crossencoder"]["hint"] = mode
    data["eval"]["enabled"] = False
    final = Path(train(validate_recipe(data))["final"])
    assert json.loads((final / "config.json").read_text())["citetrain_hint"] == mode
    engine = make_engine(f"classifier:{final}", cache=False, progress=False, device="cpu")
    assert engine.backend.hint == mode and f"+hint-{mode}" in engine.backend.revision
    pairs = [("w1 w2 w3 .", "it says w2"), ("w1 w2 w3 .", "it says w9")]
    model = AutoModelForSequenceClassification.from_pretrained(final)
    tok = AutoTokenizer.from_pretrained(final)
    in_memory = model_support(model, tok, max_length=48)(pairs)
    assert torch.allclose(torch.tensor(engine.score(pairs)), torch.tensor(in_memory), atol=1e-5)
    # read without the hint, the same model is fed other tokens (a 2-step model's scores move
    # by ~1e-5 only, so compare exactly)
    model.config.citetrain_hint = "none"
    assert not torch.equal(torch.tensor(model_support(model, tok, max_length=48)(pairs)),
                           torch.tensor(in_memory))


def test_the_in_memory_reader_selects_long_premises_as_the_backend_does(tiny_bert, tmp_path):
    """A ``premise: select`` model read by the pair refiner's in-memory reader is fed the
    best-covering sentences of a long page, the text the ``classifier:`` backend feeds it."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from citetrain.nli.premises import read_pairs
    from citetrain.refine.pairs import model_support

    model = AutoModelForSequenceClassification.from_pretrained(
        tiny_bert, num_labels=3, ignore_mismatched_sizes=True,
        id2label={0: "not_supported", 1: "partially_supported", 2: "supported"})
    model.config.citetrain_premise, model.config.citetrain_hint = "select", "uncovered"
    tok = AutoTokenizer.from_pretrained(tiny_bert)
    fed: list = []

    def recording(*args, **kwargs):
        if len(args) == 2:  # (premises, statements): what the model reads
            fed.append(args)
        return tok(*args, **kwargs)

    recording.num_special_tokens_to_add, recording.pad = tok.num_special_tokens_to_add, tok.pad
    filler = " ".join(f"w{i % 6} w{(i + 1) % 6} ." for i in range(30))
    pairs = [(filler + " w9 w10 w11 .", "it says w10 w12")]
    model_support(model, recording, max_length=24)(pairs)
    (premises, hyps), = fed
    assert (list(premises), list(hyps)) == read_pairs(pairs, tok, 24, "select", "uncovered")
    assert "w10" in premises[0] and hyps[0] == "it says w10 w12 | not in the passage: says w12"


def wice_token_rows(n: int) -> list[dict]:
    """WiCE ``non_supported_tokens`` rows: sentence 1 supports ``wA``, ``wB`` is unsupported."""
    return [{"claim": f"Claim {i} has w1 and w{i % 12} -x .", "label": "partially_supported",
             "claim_tokens": ["Claim", str(i), "has", "w1", "and", f"w{i % 12}", "-", "x", "."],
             "non_supported_spans": [False, False, False, False, True, True, False, False, False],
             "supporting_sentences": [[1]], "meta": {"id": f"t{i}"},
             "evidence": ["A title .", f"Claim {i} has w1 .", "Other text ."]}
            for i in range(n)]


def test_wice_tokens_give_three_levels_split_by_the_claim(tmp_path):
    from citetrain.judge_training.pairs_wice import derived_pairs, detokenize
    from citetrain.judge_training.pairs import labelled_rows, parse_source

    assert detokenize(["ex", "-", "pats", "(", "UK", ")", "."]) == "ex-pats (UK)."
    part, full, none = derived_pairs(wice_token_rows(3)[2], 1)
    assert (part.label, full.label, none.label) == (1, 2, 0)
    assert part.hypothesis == none.hypothesis == "Claim 2 has w1 and w2 -x ."
    assert full.hypothesis == "Claim 2 has w1-x." and full.premise == part.premise
    assert "Claim 2 has w1" not in none.premise and "Other text" in none.premise
    assert len({part.group, full.group, none.group}) == 1

    path = write_jsonl(tmp_path / "tokens.jsonl", wice_token_rows(30))
    assert parse_source(f"wice_tokens:{path}") == ("wice_tokens", str(path))
    splits, described = labelled_rows([f"wice_tokens:{path}"], 0.3, 0)
    assert described[0]["format"] == "wice_tokens" and described[0]["pairs"] == 90
    sides = {}
    for name, rows in splits.items():
        for r in rows:
            sides.setdefault(r["group"], set()).add(name)
    assert len(sides) == 30 and all(len(s) == 1 for s in sides.values())
    assert {len(rows) % 3 for rows in splits.values()} == {0} and all(splits.values())


def test_synth_records_give_pairs_of_known_support(tmp_path):
    from citetrain.synth.records import synth_records
    from citetrain.judge_training.pairs_synth import read_synth, record_pairs
    from citetrain.judge_training.pairs import labelled_rows

    recs = [r.model_dump() for r in synth_records(40, seed=2)]
    path = write_jsonl(tmp_path / "synth.jsonl", recs)
    pairs = read_synth(path)
    assert {p.label for p in pairs} == {0, 1, 2} and pairs.format == "synth"
    rec = next(r for r in recs if any(c.startswith("multi") for c in r["case"]))
    k = next(i for i, c in enumerate(rec["case"]) if c.startswith("multi"))
    mine = [p for p in record_pairs(rec) if p.group == f"{rec['id']}:{k}"]
    assert [p.label for p in mine][:1 + len(rec["gold"][k])] == [2] + [1] * len(rec["gold"][k])
    assert mine[-1].label == 0 and mine[0].premise.count("\n") == len(rec["docs"]) - 1
    unsupported = [p for r in recs for p in record_pairs(r) if p.id.endswith("#all")
                   and p.label == 0]
    assert unsupported  # statements no passage states are read against all passages
    splits, described = labelled_rows([f"synth:{path}"], 0.3, 0)
    assert described[0]["format"] == "synth" and sum(map(len, splits.values())) == len(pairs)


def test_a_statement_too_long_for_max_length_is_dropped_not_an_error(tiny_bert):
    """The fast tokenizer refuses ``only_first`` when the statement leaves no room for the
    premise; such a pair is dropped and counted, the others are read as usual."""
    import datasets
    from transformers import AutoTokenizer

    from citetrain.judge_training.trainer import tokenize

    tok = AutoTokenizer.from_pretrained(tiny_bert)
    long = " ".join(["w1"] * 60)
    ds = datasets.Dataset.from_dict({"premise": ["w1 w2 w3", "w4 w5", "w6"],
                                     "hypothesis": ["it says w2", long, "it says w6"],
                                     "label": [2, 0, 2], "group": ["a", "b", "c"],
                                     "source": ["x:y"] * 3})
    data, kept = tokenize(ds, tok, 32, "train")
    assert list(kept["group"]) == ["a", "c"] and len(data) == 2
    assert all(len(ids) <= 32 for ids in data["input_ids"]) and "fits" not in data.column_names
    assert data[0]["input_ids"] == tok("w1 w2 w3", "it says w2")["input_ids"]


def test_held_out_scores_are_saved_beside_the_summary_and_give_its_figures(tiny_bert, tmp_path):
    """Every held-out pair's scores (the model's, lexical recall's) are saved in
    ``heldout_scores.jsonl`` and give the summary's per-source figures again."""
    from citetrain.metrics.meta import meta_evaluate
    from citetrain.judge_training.card import auc
    from citetrain.runner import run_recipe as train

    ab = write_jsonl(tmp_path / "ab.jsonl", toy_rows(80))
    data = recipe_data(tiny_bert, [f"attributionbench:{ab}"], tmp_path, max_steps=2)
    summary = train(validate_recipe(data))
    final = Path(summary["final"])
    held = summary["heldout"]["sources"]
    assert held
    rows = [json.loads(x) for x in (final.parent / "heldout_scores.jsonl").read_text().splitlines()]
    assert len(rows) == held[0]["pairs"] and {r["source"] for r in rows} == {"attributionbench"}
    labels, groups = [r["label"] for r in rows], [r["group"] for r in rows]
    for key in ("model", "lexical"):
        got = auc(meta_evaluate([r[key] for r in rows], labels, groups))
        assert round(got, 4) == held[0][key]


def test_best_metric_loss_keeps_the_lowest_loss_checkpoint(tiny_bert, tmp_path):
    """``eval.best_metric: loss`` without ``greater_is_better``: lower is better (issue 20)."""
    from citetrain.runner import run_recipe as train

    ab = write_jsonl(tmp_path / "ab.jsonl", toy_rows(60))
    data = recipe_data(tiny_bert, [f"attributionbench:{ab}"], tmp_path, max_steps=8,
                       save_total_limit=10)
    data["eval"]["best_metric"] = "loss"
    summary = train(validate_recipe(data))
    losses = {h["step"]: h["eval_loss"] for h in summary["evals"]}
    assert len(losses) == 4 and len(set(losses.values())) > 1  # a wrong direction would show
    best = min(losses, key=losses.get)
    assert summary["best_checkpoint"].endswith(f"checkpoint-{best}")
    assert summary["best_metric"] == pytest.approx(losses[best])
