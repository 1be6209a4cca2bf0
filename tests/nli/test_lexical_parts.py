"""The lexical judge reads a premise of parts (a subset of passages, the earlier statements) from
its parts' index exactly as it reads the joined text: the same recall and decision for every
premise, CJK and full-width text included."""
import random

from citetrain.nli.engine import NLIEngine
from citetrain.nli.lexical import LexicalNLI, content_words, recall_in
from citetrain.text.joined import Parts

WORDS = ["Paris", "capital", "France", "river", "1,999", "2024", "北京是首都", "東京", "ＧＰＴ４",
         "２０２４年", "ｍｏｄｅｌ", "the", "of", "is", "Seine", "flows", "through", "。", "x"]


def _texts(rng: random.Random, n: int) -> list[str]:
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(0, 12))) for _ in range(n)]


def test_parts_read_as_their_joined_text():
    rng = random.Random(0)
    backend = LexicalNLI()
    for trial in range(200):
        parts = Parts(_texts(rng, rng.randint(1, 8)), rng.choice(["\n", " "]))
        hyp = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))
        ids = tuple(rng.sample(range(len(parts)), rng.randint(1, len(parts))))
        for premise in (parts.join(ids), parts.prefix(rng.randint(0, len(parts)))):
            text = str(premise)
            assert recall_in(hyp, premise) == recall_in(hyp, text), (trial, text, hyp)
            assert content_words(premise) == content_words(text), (trial, text)
            assert backend.predict([(premise, hyp)]) == backend.predict([(text, hyp)])


def test_the_engine_hands_parts_to_the_lexical_backend_and_text_to_others():
    parts = Parts(["Paris is the capital of France.", "The Seine flows through Paris."], "\n")
    seen: list[object] = []

    class Text(LexicalNLI):
        reads_parts = False

        def predict(self, pairs):
            seen.extend(p for p, _ in pairs)
            return super().predict(pairs)

    lexical, text = NLIEngine(LexicalNLI(), progress=False), NLIEngine(Text(), progress=False)
    pairs = [(parts.join((0, 1)), "Paris is the capital."), (parts.prefix(1), "Paris flows.")]
    assert lexical.results(pairs) == text.results(pairs)
    assert seen == [str(p) for p, _ in pairs]
    assert lexical.results(pairs) == lexical.results(pairs) and lexical.stats.memory_hits == 4


def test_the_engine_memory_is_capped_in_bytes():
    engine = NLIEngine(LexicalNLI(), progress=False, memo_bytes=2000)
    for i in range(50):
        engine.results([(f"premise number {i} " * 20, "premise")])
    assert engine._memo_size <= 2000 and 0 < len(engine._memo) < 50
    engine.forget()
    assert engine._memo_size == 0 and not engine._memo
