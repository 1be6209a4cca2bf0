"""The contract every NLI backend keeps (one parametrized test per clause, in the manner of
scikit-learn's ``test_common.py``). The kinds come from :mod:`citetrain.nli.registry`
(:data:`~citetrain.nli.registry.BUILT_IN` and the ``citetrain.nli`` entry points), and every
backend is made by :func:`~citetrain.nli.registry.make_backend`, as a run makes it:

* **batch = one by one**: ``predict`` on a batch of pairs answers each pair as ``predict`` on that
  pair alone does (probability and three-way support to 1e-5, the same decision);
* **cache**: through an :class:`~citetrain.nli.engine.NLIEngine` with an
  :class:`~citetrain.nli.cache.NLICache`, a second engine over the same cache answers every pair
  from it without reaching the backend, and its answers are the first engine's;
* **cost**: ``cost(pair)``, the engine's length-sorting key, is a positive number for every pair.

Each kind runs offline on CPU: tiny random models built from configs (``tests/nli/tiny_models.py``),
the fake OpenAI-compatible server for ``llm`` (``tests/fake_openai.py``); the classifier also
runs exported to ONNX and OpenVINO when their packages are installed. A kind the registry knows
that has no case in :data:`CASES` (nor a reason in :data:`SKIPPED`) fails until it gets one.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

import pytest

from citetrain.nli.base import NLIBackend, NLIResult
from citetrain.nli.cache import NLICache
from citetrain.nli.engine import NLIEngine
from citetrain.nli.registry import BUILT_IN, make_backend, plugin_kinds
from tests.fake_openai import ChatServer
from tests.nli.tiny_models import build_bert_classifier, build_t5

KINDS = (*BUILT_IN, *sorted(plugin_kinds()))

# short and long, English and Chinese; the long premise is read in windows by the classifier
# (128 positions), beside a longer statement in the same batch
PAIRS = [
    ("Title: Paris\nParis is the capital of France .", "Paris is in France ."),
    ("the cat sat on the mat . the dog ran in the park .", "a cat sat ."),
    ("water boils at 100 degrees .", "water freezes at 0 degrees ."),
    ("the dog ran", "the dog slept at home , and the cat sat on the mat ."),
    ("Title: River\n" + "the river runs to the sea . " * 40, "the river runs to the sea ."),
    ("北京是中国的首都。", "北京是首都。"),
]


def spread(path: Path, std: float = 0.3) -> Path:
    """Redraw a saved classifier's weight matrices at ``std``: at the usual 0.02 a tiny random BERT
    answers every pair alike to 1e-5 (its first token hardly depends on the input), which would
    hide an answer that depends on the batch; at 0.3 the answers differ by tenths."""
    import torch
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_pretrained(path)
    torch.manual_seed(0)
    with torch.no_grad():
        for weight in model.parameters():
            if weight.dim() >= 2:
                weight.normal_(0.0, std)
    model.save_pretrained(path)
    return path


class Models:
    """The tiny models and the fake chat server the cases share, built on first use."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._made: dict[str, object] = {}
        self.servers: list[ChatServer] = []

    def _once(self, key: str, make: Callable[[], object]):
        if key not in self._made:
            self._made[key] = make()
        return self._made[key]

    @property
    def classifier(self) -> Path:
        return self._once("classifier", lambda: spread(build_bert_classifier(self.root / "cls")))

    @property
    def t5(self) -> Path:
        return self._once("t5", lambda: build_t5(self.root / "t5", decisive=8.0))

    def exported(self, runtime: str) -> Path:
        from citetrain.judges.export import export_judge

        def make():
            out = self.root / f"cls-{runtime}"
            export_judge(self.classifier, out, runtime=runtime)
            return out

        return self._once(runtime, make)

    @property
    def server(self) -> ChatServer:
        def make():
            # the verdict depends on the prompt alone, so a pair gets the same answer in any batch
            srv = ChatServer(answer=lambda prompt: ("Attributable" if len(prompt) % 3 == 0 else
                                                    "Contradictory" if len(prompt) % 3 == 1 else
                                                    "Extrapolatory."))
            self.servers.append(srv)
            return srv

        return self._once("server", make)


def _onnx(m: Models) -> NLIBackend:
    pytest.importorskip("onnxruntime", reason="pip install -e '.[onnx]'")
    pytest.importorskip("onnxscript", reason="pip install -e '.[onnx]'")
    return make_backend(f"classifier:{m.exported('onnx')}", device="cpu")


def _openvino(m: Models) -> NLIBackend:
    pytest.importorskip("openvino", reason="pip install -e '.[openvino]'")
    return make_backend(f"classifier:{m.exported('openvino')}", device="cpu")


# kind -> {case id: a fresh backend of that kind}
CASES: dict[str, dict[str, Callable[[Models], NLIBackend]]] = {
    "lexical": {"lexical": lambda m: make_backend("lexical")},
    "seq2seq": {"seq2seq": lambda m: make_backend(f"seq2seq:{m.t5}", device="cpu")},
    "classifier": {
        "classifier": lambda m: make_backend(f"classifier:{m.classifier}", device="cpu"),
        "classifier-onnx": _onnx,
        "classifier-openvino": _openvino,
    },
    "llm": {"llm": lambda m: make_backend("llm:judge-7b", base_url=m.server.url,
                                          retry_delay=0.001)},
    "mean": {"mean": lambda m: make_backend(f"mean:classifier:{m.classifier}+lexical",
                                            device="cpu")},
    "clauses": {"clauses": lambda m: make_backend(f"clauses:classifier:{m.classifier}",
                                                  device="cpu")},
    "judge": {"judge": lambda m: make_backend(f"judge:crossencoder:{m.classifier}",
                                              device="cpu", cache=False)},
}
# kind -> why it cannot run in a test here (none today)
SKIPPED: dict[str, str] = {}

CASE_IDS = [(kind, case) for kind in KINDS
            for case in (CASES.get(kind) or {f"{kind}-uncovered": None})]


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    m = Models(tmp_path_factory.mktemp("nli-common"))
    yield m
    for srv in m.servers:
        srv.close()


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.fixture(params=CASE_IDS, ids=[case for _, case in CASE_IDS])
def make(request, models) -> Callable[[], NLIBackend]:
    """A maker of fresh backends of one case (fresh: no backend's own memory of answers carries
    over from one reading to the next)."""
    kind, case = request.param
    if kind in SKIPPED:
        pytest.skip(f"NLI kind {kind!r}: {SKIPPED[kind]}")
    if kind not in CASES:
        pytest.fail(f"NLI kind {kind!r} (citetrain.nli.registry) has no case in CASES: add one "
                    "built offline, or give SKIPPED the reason it cannot run here")
    build = CASES[kind][case]
    return lambda: build(models)


def same(a: NLIResult, b: NLIResult, tol: float) -> bool:
    """Equal probability and support (within ``tol``) and the same decision."""
    if (a.support is None) != (b.support is None):
        return False
    close = a.prob == pytest.approx(b.prob, abs=tol) and (
        a.support is None or list(a.support) == pytest.approx(list(b.support), abs=tol))
    return close and a.label == b.label


def test_every_registered_kind_has_a_case():
    assert set(CASES) | set(SKIPPED) >= set(KINDS), set(KINDS) - set(CASES) - set(SKIPPED)
    assert not set(CASES) - set(KINDS), "CASES names kinds the registry does not know"


def test_batch_equals_one_by_one(make):
    backend = make()
    assert isinstance(backend, NLIBackend)
    batched = backend.predict(PAIRS)
    alone = make()
    singles = [alone.predict([pair]) for pair in PAIRS]
    assert len(batched) == len(PAIRS) and all(len(s) == 1 for s in singles)
    for i, (b, (s,)) in enumerate(zip(batched, singles)):
        assert 0.0 <= b.prob <= 1.0 and isinstance(b.label, bool), (i, b)
        assert same(b, s, 1e-5), f"pair {i}: batched {b} != alone {s}"


def test_cache_hit_equals_miss(make, tmp_path):
    backend = make()
    cache = NLICache(tmp_path / "nli.sqlite")
    asked = PAIRS + PAIRS[:2]  # duplicates are asked once
    first = NLIEngine(backend, cache=cache, batch_size=4, progress=False)
    miss = first.results(asked)
    assert first.stats.model_pairs == len(PAIRS) and first.stats.cache_hits == 0
    assert len(cache) == len(PAIRS)

    reached: list = []
    predict = backend.predict
    backend.predict = lambda pairs: reached.extend(pairs) or predict(pairs)
    second = NLIEngine(backend, cache=cache, batch_size=4, progress=False)
    hit = second.results(asked)
    assert reached == [] and second.stats.model_pairs == 0
    assert second.stats.cache_hits == len(PAIRS)
    for i, (h, m) in enumerate(zip(hit, miss)):
        assert h == m, f"pair {i}: from the cache {h} != computed {m}"


def test_cost_is_positive(make):
    backend = make()
    costs = [backend.cost(pair) for pair in PAIRS]
    assert all(isinstance(c, (int, float)) and c > 0 for c in costs), costs
