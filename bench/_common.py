"""Helpers the benchmarks share with the test suite: tiny random-weight models built offline (a
tokenizer trained on a small corpus, a T5 made from a config) and ``citetrain serve`` started as a
process on a free localhost port.
"""
from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterable, Sequence

CORPUS = [
    "premise: the cat sat on the mat . hypothesis: a cat sat on a mat . 1",
    "premise: Title: Paris\nParis is the capital of France . hypothesis: Paris is in France . 1",
    "premise: the dog ran in the park . hypothesis: the dog slept at home . 0",
    "premise: water boils at 100 degrees . hypothesis: water freezes at 0 degrees . 0",
    "Title: Moon\nThe Moon orbits the Earth every 27 days , 1969 , 2 3 4 5 6 7 8 9 10",
]


def train_tokenizer(
    corpus: Iterable[str],
    *,
    kind: str = "wordlevel",
    vocab_size: int = 8000,
    style: str = "t5",
):
    """A fast tokenizer trained on ``corpus``.

    ``kind``: ``"wordlevel"`` (whitespace and punctuation split), ``"bpe"`` (Metaspace, like
    SentencePiece) or ``"wordpiece"`` (lower-cased, BERT's normalizer and pre-tokenizer). ``style``: ``"t5"`` (``<pad>`` 0, ``</s>`` 1, ``<unk>`` 2; ``</s>`` appended)
    or ``"bert"`` (``[PAD] [UNK] [CLS] [SEP]``; ``[CLS] a [SEP] b [SEP]`` with segment ids).
    """
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    specials = ["<pad>", "</s>", "<unk>"] if style == "t5" else ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
    unk = "<unk>" if style == "t5" else "[UNK]"
    if kind == "wordlevel":
        tok = Tokenizer(models.WordLevel(unk_token=unk))
        tok.pre_tokenizer = pre_tokenizers.Whitespace()
        trainer = trainers.WordLevelTrainer(vocab_size=vocab_size, special_tokens=specials)
    elif kind == "bpe":
        tok = Tokenizer(models.BPE(unk_token=unk))
        tok.pre_tokenizer = pre_tokenizers.Metaspace()
        tok.decoder = decoders.Metaspace()
        trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=specials)
    elif kind == "wordpiece":
        tok = Tokenizer(models.WordPiece(unk_token=unk))
        tok.normalizer = normalizers.BertNormalizer(lowercase=True)
        tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
        tok.decoder = decoders.WordPiece()
        trainer = trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=specials,
                                            show_progress=False)
    else:
        raise ValueError(f"unknown tokenizer kind {kind!r}")
    tok.train_from_iterator(list(corpus), trainer)
    if style == "t5":
        eos = tok.token_to_id("</s>")
        tok.post_processor = processors.TemplateProcessing(
            single="$A </s>", pair="$A </s> $B </s>", special_tokens=[("</s>", eos)])
        return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", eos_token="</s>",
                                       unk_token="<unk>")
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)])
    return PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]",
                                   cls_token="[CLS]", sep_token="[SEP]")


def build_t5(
    directory: str | Path,
    corpus: Sequence[str] = CORPUS,
    *,
    kind: str = "wordlevel",
    d_model: int = 32,
    num_layers: int = 2,
    num_heads: int = 4,
    d_ff: int | None = None,
    vocab_size: int = 8000,
    decisive: float | None = None,
    seed: int = 0,
) -> Path:
    """Save a random T5 (TRUE-style input; ``"1"`` and ``"0"`` in the vocabulary) to ``directory``.

    ``decisive``: scale the output rows of ``"0"`` and ``"1"`` by this factor (untied head) so the
    random model answers one of them, input-dependently — a stand-in for a trained TRUE model.
    """
    import torch
    from transformers import T5Config, T5ForConditionalGeneration

    out = Path(directory)
    tokenizer = train_tokenizer(list(corpus) + ["0 1"], kind=kind, vocab_size=vocab_size)
    config = T5Config(
        vocab_size=len(tokenizer), d_model=d_model, d_kv=d_model // num_heads,
        d_ff=d_ff or 2 * d_model, num_layers=num_layers, num_heads=num_heads,
        pad_token_id=tokenizer.pad_token_id, eos_token_id=tokenizer.eos_token_id,
        decoder_start_token_id=tokenizer.pad_token_id, tie_word_embeddings=decisive is None,
    )
    torch.manual_seed(seed)
    model = T5ForConditionalGeneration(config)
    if decisive is not None:
        with torch.no_grad():
            for word in ("0", "1"):
                (tid,) = tokenizer(word, add_special_tokens=False)["input_ids"]
                model.lm_head.weight[tid] *= decisive
    model.eval()
    tokenizer.save_pretrained(out)
    model.save_pretrained(out)
    return out


def heavy_record(rid: str, n_docs: int = 10, n_statements: int = 1, seed: int = 0) -> dict:
    """A record (plain format) that costs an NLI judge about the most calls its passages allow:
    each statement's ten made-up content words lie two to a passage, so that for lexical recall
    (threshold 0.7) no passage, pair or triple entails it but all passages together do, and every
    pair and triple is asked (:func:`citetrain.serve.cost.calls_per_statement`)."""
    import random

    rng = random.Random(f"{seed}-{rid}")
    letters = "bcdfghjklmnpqrstvwxz"
    sentences = [[("".join(rng.choice(letters) + v for v in "aeio")) for _ in range(10)]
                 for _ in range(n_statements)]
    docs = [{"title": f"passage {k + 1}",
             "text": " ".join(w for words in sentences for w in (words[k % 10], words[(k + 1) % 10]))}
            for k in range(n_docs)]
    output = " ".join(" ".join(words).capitalize() + " [1]." for words in sentences)
    return {"id": rid, "question": "What do the passages say?", "docs": docs, "output": output}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(args: list[str], log: Path, seconds: float, port: int | None = None,
                 **popen) -> tuple[subprocess.Popen, str]:
    """``citetrain serve ARGS --port P`` (``port``, else a free one) with its output in ``log``;
    returns the process and its URL once ``/health`` answers 200. Raises ``RuntimeError`` (with
    the log's end) if the process stops first, or after ``seconds``."""
    import httpx

    port = port or free_port()
    with open(log, "w") as out:
        proc = subprocess.Popen([sys.executable, "-m", "citetrain.cli.main", "serve", *args,
                                 "--port", str(port)], stdout=out, stderr=subprocess.STDOUT, **popen)
    url = f"http://127.0.0.1:{port}"
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if proc.poll() is not None:
            raise RuntimeError(f"the server stopped: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"the server did not answer /health in {seconds:.0f} s")


def stop_server(proc: subprocess.Popen, seconds: float = 30) -> None:
    """SIGTERM a server of :func:`start_server` (if still running); SIGKILL after ``seconds``."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            proc.kill()
