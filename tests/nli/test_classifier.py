"""MNLI-style classifier NLI on tiny random BERT models."""
from __future__ import annotations

import pytest
import torch

from citetrain.errors import CitetrainError
from citetrain.nli.base import NLIBackend
from citetrain.nli.classifier import ClassifierNLI, label_indices, position_limit, probabilities
from citetrain.nli.premises import read_pairs
from citetrain.nli.hf import fingerprint
from tests.nli.tiny_models import build_bert_classifier, train_tokenizer

PAIRS = [
    ("Title: Paris\nParis is the capital of France .", "Paris is in France ."),
    ("the cat sat on the mat . the dog ran in the park .", "a cat sat ."),
    ("water boils at 100 degrees .", "water freezes at 0 degrees ."),
    ("the dog ran", "the dog slept at home ."),
]


def _softmax_rows(nli: ClassifierNLI, pairs) -> list[list[float]]:
    """Reference: the model's own logits for one pair at a time, softmaxed."""
    rows = []
    for p, h in pairs:
        enc = nli.tokenizer(p, h, return_tensors="pt")
        with torch.no_grad():
            rows.append(torch.softmax(nli.model(**enc).logits[0], -1).tolist())
    return rows


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    root = tmp_path_factory.mktemp("cls")
    return {
        # label order deliberately not MNLI's, and in mixed case
        "three": build_bert_classifier(root / "three", ("contradiction", "ENTAILMENT", "Neutral")),
        "binary": build_bert_classifier(root / "binary", ("not_entailment", "entailment"), seed=1),
        "anon": build_bert_classifier(root / "anon", ("LABEL_0", "LABEL_1", "LABEL_2")),
    }


def test_three_way_probabilities_follow_label_names(models):
    nli = ClassifierNLI(str(models["three"]), device="cpu")
    assert isinstance(nli, NLIBackend) and nli.three_way and nli.labels == {
        "contradiction": 0, "entailment": 1, "neutral": 2}
    assert nli.revision == fingerprint(models["three"]) + "+win2" and nli.model_id == "three"
    for res, row in zip(nli.predict(PAIRS), _softmax_rows(nli, PAIRS)):
        # id 1 is ENTAILMENT, 2 Neutral, 0 contradiction
        assert res.prob == pytest.approx(row[1], abs=1e-5)
        assert res.support == pytest.approx((row[1], row[2], row[0]), abs=1e-5)
        assert sum(res.support) == pytest.approx(1.0, abs=1e-5)
        assert res.label == (max(range(3), key=row.__getitem__) == 1)


def test_binary_model_has_no_three_way_support(models):
    nli = ClassifierNLI(str(models["binary"]), device="cpu")
    assert not nli.three_way
    for res, row in zip(nli.predict(PAIRS), _softmax_rows(nli, PAIRS)):
        assert res.support is None
        assert res.prob == pytest.approx(row[1], abs=1e-5) and res.label == (row[1] > row[0])


def test_batched_equals_one_at_a_time(models):
    nli = ClassifierNLI(str(models["three"]), device="cpu", batch_size=4)
    batched = nli.predict(PAIRS)
    for pair, b in zip(PAIRS, batched):
        (s,) = nli.predict([pair])
        assert b.prob == pytest.approx(s.prob, abs=1e-5) and b.label == s.label


def test_threshold_and_max_length_tag_the_revision(models):
    nli = ClassifierNLI(str(models["three"]), device="cpu", threshold=0.0, max_length=16)
    assert all(r.label for r in nli.predict(PAIRS))
    assert nli.revision == fingerprint(models["three"]) + "+len16+t0+win2"
    assert len(nli.predict([("word " * 200, "cat")])) == 1  # read in windows, one answer


def test_long_premises_are_read_in_windows_and_take_the_best(models):
    """The first window is what truncation would read; the pair takes the best window."""
    long = ("the dog sat on a mat " * 12) + "a cat is on the mat"
    pairs = [(long, "a cat is on the mat"), ("the dog sat", "the dog sat")]
    win = ClassifierNLI(str(models["three"]), device="cpu", max_length=40)
    cut = ClassifierNLI(str(models["three"]), device="cpu", max_length=40, windows=False)
    enc, owner, *_ = win._encode(pairs)
    assert owner.count(0) > 1 and owner.count(1) == 1
    assert cut.truncates(pairs)[0] and not any(win.truncates(pairs))
    w, c = win.predict(pairs), cut.predict(pairs)
    assert w[0].prob >= c[0].prob - 1e-6
    assert w[1].prob == pytest.approx(c[1].prob, abs=1e-5)  # short pair: one window, same answer
    assert cut.revision == fingerprint(models["three"]) + "+len40"


def test_measuring_lengths_does_not_warn_of_over_long_sequences(models):
    """``truncates`` only measures; transformers' "longer than the specified maximum" warning is
    for sequences run through the model, and the capture below does see it when asked."""
    import logging

    from transformers.utils import logging as hf_logging

    seen: list[str] = []

    class Catch(logging.Handler):
        def emit(self, record):
            seen.append(record.getMessage())

    long = ("the dog sat on a mat " * 12) + "a cat is on the mat"
    cut = ClassifierNLI(str(models["three"]), device="cpu", max_length=40, windows=False)
    cut.tokenizer.model_max_length = 40
    catch = Catch()
    hf_logging.get_logger("transformers").addHandler(catch)
    try:
        assert cut.truncates([(long, "a cat is on the mat")]) == [True]
        assert not [m for m in seen if "longer than the specified maximum" in m]
        cut.tokenizer([long], ["a cat is on the mat"])  # the call that should warn
        assert [m for m in seen if "longer than the specified maximum" in m]
    finally:
        hf_logging.get_logger("transformers").removeHandler(catch)


def test_no_entailment_label_is_a_clear_error(models):
    with pytest.raises(CitetrainError, match=r"labels \(LABEL_0, LABEL_1, LABEL_2\) include no "
                                             r"entailment label"):
        ClassifierNLI(str(models["anon"]), device="cpu")


def test_probabilities_are_the_softmax_in_float32_on_the_cpu():
    logits = torch.tensor([[2.0, 0.0, -1.0], [0.0, 0.0, 0.0], [1000.0, 999.0, -1000.0]])
    out = probabilities(logits)
    assert out.dtype == torch.float32 and out.device.type == "cpu"
    e = 2.718281828459045
    first = [e ** 3 / (e ** 3 + e + 1), e / (e ** 3 + e + 1), 1 / (e ** 3 + e + 1)]
    assert out[0].tolist() == pytest.approx(first, abs=1e-7)
    assert out[1].tolist() == pytest.approx([1 / 3] * 3, abs=1e-7)
    # large logits stay finite: softmax(1000, 999, -1000) = (e/(e+1), 1/(e+1), 0)
    assert out[2].tolist() == pytest.approx([e / (e + 1), 1 / (e + 1), 0.0], abs=1e-7)
    assert torch.allclose(probabilities(logits.bfloat16()), torch.softmax(logits.bfloat16().float(), -1))


def test_label_indices_names():
    assert label_indices({0: "ENTAILMENT", 1: "NEUTRAL", 2: "CONTRADICTION"}) == {
        "entailment": 0, "neutral": 1, "contradiction": 2}
    assert label_indices({"0": "entail", "1": "not-entailment"}) == {
        "entailment": 0, "not_entailment": 1}
    with pytest.raises(CitetrainError, match="two labels mean entailment"):
        label_indices({0: "entailment", 1: "Entail"})
    with pytest.raises(CitetrainError, match="no entailment label"):
        label_indices({0: "not_entailment", 1: "neutral"})


def test_registry_makes_a_classifier(models):
    from citetrain.nli.registry import make_backend

    nli = make_backend(f"classifier:{models['binary']}", device="cpu", batch_size=2)
    assert isinstance(nli, ClassifierNLI) and nli.batch_size == 2 and nli.model_id == "binary"


def test_support_level_names_read_as_three_way(tmp_path):
    assert label_indices({0: "not_supported", 1: "partially_supported", 2: "supported"}) == {
        "contradiction": 0, "neutral": 1, "entailment": 2}
    path = build_bert_classifier(tmp_path / "judge",
                                 ("not_supported", "partially_supported", "supported"))
    nli = ClassifierNLI(str(path), device="cpu")
    assert nli.three_way
    for res, row in zip(nli.predict(PAIRS), _softmax_rows(nli, PAIRS)):
        assert res.prob == pytest.approx(row[2], abs=1e-5)
        assert res.support == pytest.approx((row[2], row[1], row[0]), abs=1e-5)


def test_premise_select_reads_the_best_sentences(models, tmp_path):
    long = ("the dog sat on a mat . " * 12) + "a cat is on the mat ."
    sel = ClassifierNLI(str(models["three"]), device="cpu", max_length=24, premise="select")
    assert sel.revision == fingerprint(models["three"]) + "+len24+sel" and not sel.windows
    (kept,), _ = read_pairs([(long, "a cat is on the mat")], sel.tokenizer, sel.max_length,
                            sel.premise, sel.hint)
    assert "cat" in kept and len(kept.split()) < len(long.split())
    (res,) = sel.predict([(long, "a cat is on the mat")])
    (ref,) = sel.predict([(kept, "a cat is on the mat")])
    assert res.prob == pytest.approx(ref.prob, abs=1e-5)
    with pytest.raises(CitetrainError, match="premise must be one of"):
        ClassifierNLI(str(models["three"]), device="cpu", premise="best")


def test_pairs_read_as_one_text_take_one_row(models, monkeypatch):
    """Two premises that selection cuts to the same sentences (here one page and that page with a
    far sentence more) are one model row: the same answer, one forward row, the others unmoved."""
    sel = ClassifierNLI(str(models["three"]), device="cpu", max_length=24, premise="select")
    page = "a cat is on the mat . the dog sat on a rug ."
    longer = page + " " + "birds fly south in the winter months . " * 6
    pairs = [(page, "a cat is on the mat"), PAIRS[0], (longer, "a cat is on the mat")]
    (a, _), (b, _) = (read_pairs([x], sel.tokenizer, 24, "select", sel.hint) for x in (pairs[0], pairs[2]))
    assert a == b and pairs[0] != pairs[2]  # two pairs, one text as read
    rows = []
    forward = sel.model.forward
    monkeypatch.setattr(sel.model, "forward", lambda **k: rows.append(len(k["input_ids"])) or forward(**k))
    got = sel.predict(pairs)
    assert sum(rows) == 2
    alone = [ClassifierNLI(str(models["three"]), device="cpu", max_length=24,
                           premise="select").predict([x])[0] for x in pairs]
    assert got[0] == got[2] and got[1].prob == pytest.approx(alone[1].prob, abs=1e-5)
    assert [r.prob for r in got] == pytest.approx([r.prob for r in alone], abs=1e-5)


def test_a_text_read_in_an_earlier_call_takes_no_row(models, monkeypatch):
    """Across calls too: a pair read as the same text as a pair of an earlier call (here the page
    with a far sentence more, asked after the page) gets that call's answer and no forward row;
    a new text gets a row; the memory forgets its oldest texts past ``READ_MEMORY``."""
    import citetrain.nli.classifier as classifier

    sel = ClassifierNLI(str(models["three"]), device="cpu", max_length=24, premise="select")
    page = "a cat is on the mat . the dog sat on a rug ."
    longer = page + " " + "birds fly south in the winter months . " * 6
    rows: list[int] = []
    forward = sel.model.forward
    monkeypatch.setattr(sel.model, "forward", lambda **k: rows.append(len(k["input_ids"])) or forward(**k))
    (first,) = sel.predict([(page, "a cat is on the mat")])
    (again,) = sel.predict([(longer, "a cat is on the mat")])
    assert rows == [1] and again == first
    monkeypatch.setattr(classifier, "READ_MEMORY", 2)
    sel.predict([PAIRS[0], PAIRS[1]])  # two new texts: the page's is forgotten
    assert rows == [1, 2] and len(sel.read_memory) == 2
    sel.predict([PAIRS[0], (longer, "a cat is on the mat")])
    assert rows == [1, 2, 1]

    from citetrain.nli.engine import NLIEngine
    from citetrain.nli.mean import MeanNLI
    from citetrain.nli.lexical import LexicalNLI

    NLIEngine(MeanNLI([(sel, 1.0), (LexicalNLI(), 1.0)]), progress=False).forget()
    assert sel.read_memory == {}  # the engine's forget reaches a mean's members


def test_premise_mode_comes_from_the_model_config(tmp_path):
    import json

    path = build_bert_classifier(tmp_path / "judge", ("not_supported", "partially_supported",
                                                      "supported"))
    cfg = json.loads((path / "config.json").read_text())
    (path / "config.json").write_text(json.dumps({**cfg, "citetrain_premise": "select"}))
    assert ClassifierNLI(str(path), device="cpu").premise == "select"
    assert ClassifierNLI(str(path), device="cpu", premise="windows").premise == "windows"
    assert ClassifierNLI(str(path), device="cpu", windows=False).premise == "cut"


def test_int8_dtype_quantizes_the_linear_layers_and_keeps_the_answers(models):
    """``dtype="int8"``: every Linear becomes a dynamically quantized int8 Linear, the probabilities
    stay close to fp32's, the cache revision says so, and a GPU device is refused."""
    fp32 = ClassifierNLI(models["three"], device="cpu")
    int8 = ClassifierNLI(models["three"], device="cpu", dtype="int8")
    linear = [type(m) for m in int8.model.modules() if type(m).__name__ == "Linear"]
    assert linear and all(t.__module__.startswith("torch.ao.nn.quantized.dynamic") for t in linear)
    assert "+int8pc" in int8.revision and "+int8" not in fp32.revision
    a, b = fp32.predict(PAIRS), int8.predict(PAIRS)
    assert max(abs(x.prob - y.prob) for x, y in zip(a, b)) < 0.02
    assert [x.support is None for x in a] == [y.support is None for y in b]


def test_bf16_weights_key_the_cache_apart_and_stay_close_to_fp32(models, monkeypatch):
    """``dtype="bf16"`` on a CPU: bf16 weights, answers within bf16 rounding of fp32's, and a
    cache revision of their own (``+bf16``; fp16 ``+fp16``), so no fp32 answer is reused for them
    or the other way round. A CPU without native bf16 is warned that it will be slower."""
    import warnings

    from citetrain.nli import hf

    fp32 = ClassifierNLI(models["three"], device="cpu")
    monkeypatch.setattr(hf, "cpu_has_bf16", lambda: True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # native bf16: no warning
        bf16 = ClassifierNLI(models["three"], device="cpu", dtype="bf16")
    assert next(bf16.model.parameters()).dtype == torch.bfloat16
    assert bf16.revision == fingerprint(models["three"]) + "+bf16+win2"
    assert ClassifierNLI(models["three"], device="cpu", dtype="fp16").revision.startswith(
        fingerprint(models["three"]) + "+fp16")
    assert "+bf16" not in fp32.revision and "+fp" not in fp32.revision
    a, b = fp32.predict(PAIRS), bf16.predict(PAIRS)
    assert max(abs(x.prob - y.prob) for x, y in zip(a, b)) < 0.02
    assert any(x.prob != y.prob for x, y in zip(a, b))  # bf16 did the arithmetic
    monkeypatch.setattr(hf, "cpu_has_bf16", lambda: False)
    with pytest.warns(UserWarning, match="no native bf16"):
        ClassifierNLI(models["three"], device="cpu", dtype="bf16")


def test_batches_are_cut_to_their_longest_row_and_answers_keep_their_order(models):
    """Rows are batched longest first, each batch padded only to its own longest row (right or
    left padding), and the answers come back in the pairs' order: the same as one pair at a time."""
    from citetrain.nli.classifier import length_batches

    nli = ClassifierNLI(models["three"], device="cpu", batch_size=2)
    enc = nli.tokenizer([p for p, _ in PAIRS], [h for _, h in PAIRS], padding=True,
                        return_tensors="pt")
    lengths = enc["attention_mask"].sum(dim=1)
    order, batches = length_batches(enc, 2)
    assert sorted(order.tolist()) == [0, 1, 2, 3]
    assert lengths[order].tolist() == sorted(lengths.tolist(), reverse=True)
    for i, batch in enumerate(batches):
        rows = order[2 * i:2 * i + 2]
        assert batch["input_ids"].shape[1] == int(lengths[rows].max())
        assert batch["attention_mask"].sum().item() == int(lengths[rows].sum())  # no token lost
    left = {k: v.clone() for k, v in enc.items()}
    for k, v in left.items():  # the same rows padded on the left
        left[k] = torch.stack([torch.roll(row, int(v.shape[1] - n)) for row, n in zip(v, lengths)])
    _, lbatches = length_batches(left, 2, "left")
    for batch, lbatch in zip(batches, lbatches):
        for row, lrow, n in zip(batch["input_ids"], lbatch["input_ids"], batch["attention_mask"].sum(1)):
            assert row[:n].tolist() == lrow[-n:].tolist()
    for res, row in zip(nli.predict(PAIRS), _softmax_rows(nli, PAIRS)):
        assert res.support == pytest.approx((row[1], row[2], row[0]), abs=1e-5)


def test_int8_weights_per_channel_and_each_pair_read_alone(models):
    """int8 weights carry one scale per output channel, and a pair's answer does not depend on the
    pairs asked with it (one activation scale per pair, no padding): the same bits alone as in a
    batch with a longer pair, where a batched int8 forward pass gives it another answer."""
    import torch

    int8 = ClassifierNLI(models["three"], device="cpu", dtype="int8")
    linear = [m for m in int8.model.modules() if type(m).__name__ == "Linear"]
    assert all(m.weight().qscheme() == torch.per_channel_affine for m in linear)
    longer = (" ".join(["the cat sat on the mat , then it slept all day long ."] * 3), "a cat slept")
    alone = int8.predict([PAIRS[0]])[0]
    batched = int8.predict([PAIRS[0], longer])[0]
    assert (alone.prob, alone.support) == (batched.prob, batched.support)
    int8.rows_alone = False  # the batched forward pass: padding and the longer pair's scale
    assert int8.predict([PAIRS[0], longer])[0].prob != alone.prob
    with pytest.raises(CitetrainError, match="int8.*CPU only"):
        ClassifierNLI(models["three"], device="cuda:0", dtype="int8")


def test_select_reads_a_statement_longer_than_max_length(models):
    """A statement that leaves no room for its premise is read cut (the fast tokenizer refuses
    ``only_first`` there); the other pairs of the batch are read exactly as before."""
    nli = ClassifierNLI(models["three"], device="cpu", premise="select", max_length=24)
    long = " ".join(["the cat sat on the mat ."] * 10)
    short = PAIRS[0]
    both = nli.predict([short, ("the dog ran in the park .", long)])
    alone = nli.predict([short])
    assert len(both) == 2 and 0.0 <= both[1].prob <= 1.0
    assert both[0].prob == pytest.approx(alone[0].prob, abs=1e-5)
    assert nli.cut_statements == 1  # counted once, by the call that read it cut


def test_pair_refiner_support_reads_a_long_statement_cut(models):
    """The training loop's pair-refiner scorer reads pairs as the backend does: a statement longer
    than max_length is scored, not refused by the tokenizer."""
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from citetrain.refine.pairs import model_support

    model = AutoModelForSequenceClassification.from_pretrained(models["three"])
    tok = AutoTokenizer.from_pretrained(models["three"])
    support = model_support(model, tok, max_length=24)
    long = " ".join(["the cat sat on the mat ."] * 10)
    probs = support([PAIRS[0], ("the dog ran in the park .", long)])
    assert len(probs) == 2 and all(0.0 <= p <= 1.0 for p in probs)


def _forward_widths(nli: ClassifierNLI) -> list[tuple[int, int]]:
    """``(rows, width)`` of every forward pass ``nli`` makes from now on."""
    shapes: list[tuple[int, int]] = []
    model = nli.model

    def forward(**kwargs):
        shapes.append(tuple(kwargs["input_ids"].shape))
        return model(**kwargs)

    nli.model = forward
    return shapes


def test_engine_batch_size_reaches_the_model(models):
    """``make_engine(batch_size=N)`` runs forwards of N pairs (it used to set only the engine's
    chunk, leaving the model at the backend's default 16)."""
    from citetrain.nli.registry import make_engine

    engine = make_engine(f"classifier:{models['three']}", cache=False, batch_size=3, progress=False,
                         device="cpu")
    assert engine.batch_size == 3 and engine.backend.batch_size == 3
    shapes = _forward_widths(engine.backend)
    pairs = [(f"the cat sat on mat {i} .", "a cat sat .") for i in range(7)]
    engine.score(pairs)
    assert [n for n, _ in shapes] == [3, 3, 1]
    assert make_engine("lexical", batch_size=3).backend.batch_size == 1024  # not a model's


def test_the_engine_hands_many_batches_and_the_classifier_sorts_them_as_read(models):
    """The engine hands the classifier ``call_size`` pairs (16 batches) in one call, and the
    classifier sorts their rows by the length they are read at: a pair whose long premise is cut
    to its best sentences (``select``) goes with the short pairs, which the engine's character
    order cannot know. Fewer padded tokens, the same answers as batch by batch."""
    from citetrain.nli.classifier import CALL_BATCHES
    from citetrain.nli.engine import NLIEngine

    nli = ClassifierNLI(models["three"], device="cpu", batch_size=2, premise="select",
                        max_length=24)
    assert nli.call_size == 2 * CALL_BATCHES
    long = " ".join(f"the bird {w} sang ." for w in ("red", "blue", "green", "grey", "pink"))
    pairs = [(long, "a red bird sang ."), (long + " the cat sat .", "the cat sat ."),
             ("a dog ran .", "a dog ran ."), ("water is wet .", "water is wet ."),
             ("x y z .", "a dog sat .")]
    engine, model = NLIEngine(nli, progress=False), nli.model
    shapes = _forward_widths(nli)
    got = engine.results(pairs)
    assert engine.stats.batches == 1 and [n for n, _ in shapes] == [2, 2, 1]
    nli.read_memory.clear()  # read again, not remembered
    read = nli._encode(pairs)[0]["attention_mask"].sum(1).tolist()
    assert [w for _, w in shapes] == [sorted(read, reverse=True)[i] for i in (0, 2, 4)]
    nli.model = model
    nli.read_memory.clear()
    alone = [nli.predict([p])[0] for p in pairs]
    for a, b in zip(alone, got):
        assert b.support == pytest.approx(a.support, abs=1e-5) and a.label == b.label


@pytest.mark.slow
def test_compile_reads_as_the_eager_model_with_one_graph_for_every_batch(models):
    """``compile=True``: the model runs through torch.compile (inductor, weights frozen), its
    answers equal the eager model's up to float rounding, the cache revision is the eager one's,
    and one graph serves batches of every size and length: a lone row is read beside a copy of
    itself, so it compiles nothing more. int8 weights are refused with a clear error."""
    from torch._dynamo.utils import counters

    eager = ClassifierNLI(models["three"], device="cpu", batch_size=3)
    compiled = ClassifierNLI(models["three"], device="cpu", batch_size=3, compile=True)
    assert compiled.compiled and not eager.compiled
    assert type(compiled.model).__name__ == "OptimizedModule"
    assert compiled.revision == eager.revision and compiled.three_way
    before = counters["stats"]["unique_graphs"]
    got = compiled.predict(PAIRS)  # a batch of 3 rows, then one of 1
    alone = compiled.predict(PAIRS[1:2])
    compiled.batch_size = 2  # two batches of two, the second narrower: a batch is its own tensor
    pairs = compiled.predict(PAIRS)
    assert counters["stats"]["unique_graphs"] - before == 1
    for a, b in zip(eager.predict(PAIRS) * 2, pairs + got):
        assert b.support == pytest.approx(a.support, abs=1e-4) and a.label == b.label
    for a, b in zip(eager.predict(PAIRS) + eager.predict(PAIRS[1:2]), got + alone):
        assert b.support == pytest.approx(a.support, abs=1e-4) and a.label == b.label
    with pytest.raises(CitetrainError, match="compile reads PyTorch weights"):
        ClassifierNLI(models["three"], device="cpu", dtype="int8", compile=True)


def test_judges_and_servers_pass_compile_to_the_classifier(models):
    """``compile`` is an engine option of the cross-encoder judge (``citetrain judge --compile``,
    ``citetrain serve --compile``), not one of the judge itself."""
    from citetrain.judges.registry import make_judge
    from citetrain.serve.config import ServeConfig

    judge = make_judge(f"crossencoder:{models['three']}", cache=False, progress=False,
                       compile=True)
    assert judge.engine.backend.compiled
    config = ServeConfig(judge=f"crossencoder:{models['three']}", compile=True)
    assert config.judge_options() == {"compile": True}
    assert ServeConfig(judge="generative:x", compile=True).judge_options() == {}


def test_roberta_positions_start_after_its_pad_id(tmp_path):
    """RoBERTa numbers its positions from pad id + 1: 34 positions with pad id 1 hold 32 tokens,
    so the backend reads at most 32 and a long premise is cut there instead of failing."""
    from transformers import BertConfig, BertForSequenceClassification, RobertaConfig, \
        RobertaForSequenceClassification

    tokenizer = train_tokenizer(["the cat sat on the mat", "the dog ran in the park"] * 5,
                                kind="wordlevel", style="bert")
    tokenizer.model_max_length = 10_000
    sizes = dict(hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
                 max_position_embeddings=34, num_labels=3, pad_token_id=1,
                 id2label={0: "entailment", 1: "neutral", 2: "contradiction"})
    roberta = RobertaForSequenceClassification(RobertaConfig(vocab_size=len(tokenizer), **sizes))
    bert = BertForSequenceClassification(BertConfig(vocab_size=len(tokenizer), **sizes))
    assert position_limit(roberta) == 32 and position_limit(bert) == 34
    from peft import LoraConfig, TaskType, get_peft_model

    lora = get_peft_model(RobertaForSequenceClassification(roberta.config), LoraConfig(
        task_type=TaskType.SEQ_CLS, r=2, target_modules=["query", "value"]))
    assert position_limit(lora) == 32  # as training sees it, under LoRA
    roberta.save_pretrained(tmp_path / "r")
    tokenizer.save_pretrained(tmp_path / "r")
    nli = ClassifierNLI(str(tmp_path / "r"), device="cpu", max_length=512, windows=False)
    assert nli.max_length == 32
    (result,) = nli.predict([("the cat sat on the mat . " * 20, "the cat sat .")])
    assert abs(sum(result.support) - 1.0) < 1e-5
