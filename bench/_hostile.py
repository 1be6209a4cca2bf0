"""Payloads and measurements of ``bench/serve_judge.py``'s hostile modes (and its tests).

Payload builders (each a JSON-able request body within the server's default caps, from
:class:`citetrain.serve.config.ServeConfig`): :func:`long_passages_body`,
:func:`many_statements_body`, :func:`cjk_body`, :func:`worst_body` (the costliest shape found by
the search of this module, filled to just under ``--max-work``) and :func:`light_body`. Words are drawn at
random from a seed (consonant-vowel syllables), so that a fresh seed gives words no cache has seen.

Measurements: :func:`rss_bytes` and :func:`cpu_seconds` of a process (``/proc``),
:func:`plan_work` (a body's estimated work, :func:`citetrain.serve.cost.plan_records`, in
process) and :func:`cache_caps` (the byte caps of every memory the judge keeps).
"""
from __future__ import annotations

import asyncio
import json
import os
import random
import time
from typing import Any, Callable

CONSONANTS = "bcdfghjklmnprstvwz"
VOWELS = "aeiou"
CJK = "的一是在不了有人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干做必战先回则任取据处"
KANA = "あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをんアイウエオカキクケコサシスセソタチツテト"


def words(rng: random.Random, n: int) -> list[str]:
    """``n`` made-up content words (3-5 syllables), new for each seed."""
    return ["".join(rng.choice(CONSONANTS) + rng.choice(VOWELS) for _ in range(rng.randint(3, 5)))
            for _ in range(n)]


def filler(rng: random.Random, chars: int) -> str:
    """About ``chars`` characters of unseen words (no sentence end)."""
    out, size = [], 0
    while size < chars:
        w = words(rng, 1)[0]
        out.append(w)
        size += len(w) + 1
    return " ".join(out)


def light_body(k: int = 0) -> dict:
    """A light client's request: one small record, three passages, two statements."""
    return {"records": [{
        "id": f"light-{k}", "question": "Where is Paris and what is it known for?",
        "docs": [{"title": "Paris", "text": "Paris is the capital of France. It lies on the Seine."},
                 {"title": "Louvre", "text": "The Louvre in Paris is the most visited museum."},
                 {"title": "Lyon", "text": "Lyon is a city in France known for its food."}],
        "output": "Paris is the capital of France [1]. The Louvre is in Paris [2]."}]}


def spread_record(rid: str, n_docs: int, n_statements: int, passage_chars: int = 0,
                  seed: int = 0, per_statement: int = 10) -> dict:
    """A record whose subset search asks every pair and triple: each statement's
    ``per_statement`` unseen words lie two to a passage (passage k holds words k and k+1 of every
    statement), so no passage, pair or triple holds 70 % of them but all passages together do;
    each passage is padded with unseen words to ``passage_chars``."""
    rng = random.Random(f"spread-{seed}-{rid}")
    sentences = [words(rng, per_statement) for _ in range(n_statements)]
    docs = []
    for k in range(n_docs):
        text = " ".join(w for ws in sentences for w in (ws[k % per_statement],
                                                          ws[(k + 1) % per_statement]))
        if len(text) < passage_chars:
            text += " " + filler(rng, passage_chars - len(text) - 1)
        docs.append({"title": f"passage {k + 1}", "text": text[:max(passage_chars, len(text))]})
    output = " ".join(" ".join(ws).capitalize() + " [1][2]." for ws in sentences)
    return {"id": rid, "question": "What do the passages say?", "docs": docs, "output": output}


def body_bytes(body: dict) -> int:
    """The body's size as a client sends it (UTF-8 JSON, non-ASCII kept)."""
    return len(json.dumps(body, ensure_ascii=False).encode())


def long_passages_body(seed: int = 0, statements: int = 10, max_body: int = 1_000_000) -> dict:
    """One record of 100 passages of about 8 KB of unseen words (cut to fit under ``max_body``)
    and ``statements`` statements spread over them."""
    chars = min(8000, (max_body - 20_000) // 100 - 40)
    return {"records": [spread_record("long", 100, statements, chars, seed)]}


def many_statements_body(seed: int = 0, statements: int = 2000, chars: int = 440,
                         max_body: int = 1_000_000, max_work: int | None = None) -> dict:
    """One record of ``statements`` statements of about ``chars`` characters each (fewer where
    the body or the work cap allows fewer): each repeats words of the earlier ones (one shared
    vocabulary), so the response-context gate passes and every statement is asked against its
    earlier ones."""
    from citetrain.serve.cost import CALL_CHARS, calls_per_statement

    per = 3 * chars + calls_per_statement(1) * CALL_CHARS  # split, read ahead, read, its calls
    statements = min(statements, int(0.97 * (max_work or default_limit("max_work"))) // per)
    rng = random.Random(f"many-{seed}")
    vocab = words(rng, 80)
    out = []
    for _ in range(statements):
        s = []
        while sum(len(w) + 1 for w in s) < chars - 12:
            s.append(rng.choice(vocab))
        out.append(" ".join(s).capitalize() + " [1].")
    text = " ".join(out)
    room = max_body - 4000
    if len(text) > room:  # fewer statements, not shorter ones
        text = text[:text.rfind(" [1].", 0, room) + 5]
    return {"records": [{"id": "many", "question": "What do the passages say about " + vocab[0] + "?",
                         "docs": [{"title": "vocabulary", "text": " ".join(vocab)}],
                         "output": text}]}


def cjk_sentences(rng: random.Random, n: int, chars: int, japanese: bool) -> str:
    pool = CJK + (KANA if japanese else "")
    return "".join("".join(rng.choice(pool) for _ in range(chars)) + ("[1]" if i % 5 == 0 else "")
                   + "。" for i in range(n))


def cjk_body(seed: int = 0, sentences: int = 1950, japanese: bool = False,
             max_body: int = 1_000_000) -> dict:
    """One Chinese (or Japanese) record whose response has ``sentences`` sentences ending in
    ``。``, as long as the body cap allows (UTF-8, three bytes a character), and a passage in
    the same script."""
    rng = random.Random(f"cjk-{seed}-{japanese}")
    chars = max(4, (max_body - 40_000) // 3 // max(sentences, 1) - 3)
    passage = cjk_sentences(rng, 200, 40, japanese).replace("[1]", "")
    return {"records": [{"id": "cjk-ja" if japanese else "cjk-zh", "question": "这些段落说了什么？",
                         "docs": [{"title": "段落", "text": passage}],
                         "output": cjk_sentences(rng, sentences, chars, japanese)}]}


# the shapes searched for the worst request, each filled to just under --max-work (records x passages x
# passage characters; statements as many as fit). "worst" is the one timed slowest per unit of
# work on 2 cores (citetrain serve --calibrate times the same kind of record)
SHAPES: dict[str, dict[str, int]] = {
    "spread-100": dict(records=1, docs=100, chars=0),
    "spread-100-long": dict(records=1, docs=100, chars=3000),
    "spread-100-7k": dict(records=1, docs=100, chars=7000),
    "spread-100-9k": dict(records=1, docs=100, chars=9000),
    "spread-50-9k": dict(records=2, docs=50, chars=9000),
    "spread-25x4-9k": dict(records=4, docs=25, chars=9000),
    "spread-10x10-9k": dict(records=10, docs=10, chars=9000),
    "spread-30x8": dict(records=8, docs=30, chars=0),
    "spread-20x16": dict(records=16, docs=20, chars=200),
    "spread-10x64": dict(records=64, docs=10, chars=0),
}
_FITTED: dict[tuple, int] = {}
WORST = "spread-50-9k"  # 2 records of 50 passages of 9 KB: the slowest per unit of work


def default_limit(name: str) -> int:
    """A limit's default in :class:`citetrain.serve.config.ServeConfig` (``max_work``, ...)."""
    from citetrain.serve.config import ServeConfig

    return int(getattr(ServeConfig(judge="nli:lexical"), name))


def shape_body(shape: str, seed: int = 0, max_work: int | None = None, max_body: int = 1_000_000,
               fill: float = 0.97) -> dict:
    """A request of ``shape`` (:data:`SHAPES`) with as many spread statements as keep its
    estimated work (:func:`estimate_work`) under ``fill`` × ``max_work`` and its body under
    ``max_body`` (default: the server's default ``--max-work``)."""
    s = SHAPES[shape]
    max_work = max_work or default_limit("max_work")

    def build(n: int) -> dict:
        per, extra = divmod(n, s["records"])
        return {"records": [spread_record(f"{shape}-{r}", s["docs"], per + (r < extra),
                                          s["chars"], seed) for r in range(s["records"])]}

    key = (shape, max_work, max_body, fill)
    if key in _FITTED:  # the count depends on the shape, hardly on the seed's words
        return build(_FITTED[key])
    lo, hi = s["records"], 2000
    while lo < hi:  # the most statements within the work and the body
        mid = (lo + hi + 1) // 2
        body = build(mid)
        if estimate_work(body) <= fill * max_work and body_bytes(body) <= max_body - 1000:
            lo = mid
        else:
            hi = mid - 1
    _FITTED[key] = lo
    return build(lo)


def worst_body(seed: int = 0, max_work: int | None = None, shape: str = WORST) -> dict:
    """The costliest request within every default cap the search found (:data:`WORST`)."""
    return shape_body(shape, seed, max_work)


def estimate_work(body: dict) -> int:
    """What :class:`citetrain.serve.cost.WorkModel` counts for ``body`` of spread records with a
    judge reading parts (the lexical one), without splitting: quick, for the builders' search;
    :func:`plan_work` gives the server's own figure."""
    from citetrain.serve.cost import CALL_CHARS, calls_per_statement

    work = 0
    for rec in body["records"]:
        stmts = rec["output"].count("[1][2].")
        passages = sum(len(d["text"]) + len(d["title"]) + 8 for d in rec["docs"])
        work += (len(rec["output"]) + len(rec["question"]) + passages
                 + stmts * calls_per_statement(len(rec["docs"])) * CALL_CHARS)
    return work


_JUDGE: dict[str, Any] = {}


def served_judge(name: str = "nli:lexical") -> Any:
    """The judge as the server loads it (no cache, no bars), made once per process."""
    if name not in _JUDGE:
        from citetrain.judges.registry import make_judge

        from citetrain.serve.scoring import warm_up

        _JUDGE[name] = make_judge(name, progress=False, cache=False)
        warm_up(_JUDGE[name])
    return _JUDGE[name]


def plan_of(body: dict, judge_name: str = "nli:lexical", **limits: Any):
    """The server's plan of ``body`` (:func:`citetrain.serve.cost.plan_records`) at default
    limits (or ``limits``); raises the server's ``RequestError`` where it would refuse."""
    from citetrain.records import Record
    from citetrain.serve.config import ServeConfig
    from citetrain.serve.cost import plan_records

    config = ServeConfig(judge=judge_name, **limits)
    records = [Record.model_validate(r) for r in body["records"]]
    return plan_records(records, config, served_judge(judge_name))


def plan_work(body: dict, judge_name: str = "nli:lexical") -> int:
    """``body``'s estimated work as the server counts it (its chunks' costs)."""
    return sum(plan_of(body, judge_name).costs)


def cache_caps() -> dict[str, int]:
    """The byte caps of what the served lexical judge keeps: every :class:`TextMemo` loaded, the
    NLI engine's in-memory answers and the token counts' memory."""
    served_judge()
    from citetrain.nli.engine import MEMO_BYTES
    from citetrain.nli.tokens import MEMORY_BYTES
    from citetrain.text.memo import MEMOS

    caps = {m.name: m.max_bytes for m in MEMOS}
    caps["NLI answers (engine)"] = MEMO_BYTES
    caps["token counts"] = MEMORY_BYTES
    return caps


def rss_bytes(pid: int) -> int:
    """The process's resident memory (``VmRSS``)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def cpu_seconds(pid: int) -> float:
    """The process's CPU seconds so far (``utime + stime`` of ``/proc/PID/stat``, all threads)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def open_sockets(pid: int) -> int:
    """The process's open sockets (its listening one included)."""
    n = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            n += os.readlink(f"/proc/{pid}/fd/{fd}").startswith("socket:")
        except OSError:
            pass
    return n


def load_average() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


# ---- clients (asyncio): light load, heavy posts, raw sockets ----

def quantiles(xs: list[float]) -> tuple[float, float, float]:
    """(p50, p99, max) of ``xs`` (zeros when empty)."""
    if not xs:
        return 0.0, 0.0, 0.0
    xs = sorted(xs)
    return xs[len(xs) // 2], xs[min(len(xs) - 1, int(0.99 * len(xs)))], xs[-1]


def summary(got) -> str:
    """One line of a mode's heavy load: its requests, trickled sockets or slow readers."""
    if isinstance(got, list):  # (status, seconds) of heavy posts
        st: dict = {}
        for s, _ in got:
            st[s] = st.get(s, 0) + 1
        p50, _, top = quantiles([t for _, t in got])
        return f"{len(got)} requests {st}, median {p50:.2f} s, max {top:.2f} s"
    key = "closed" if "closed" in got else "dropped"
    ends = [t for t in got[key] if t != float("inf")]
    out = (f"{len(ends)} of {len(got[key])} {key}"
           + (f" after {min(ends):.1f}-{max(ends):.1f} s" if ends else ""))
    if "statuses" in got:
        return out + f", answers {got['statuses']}"
    return (out + f", {min(got['read']) // 1024}-{max(got['read']) // 1024} KB read each; the "
            f"server's open sockets every 5 s: {got['sockets']}")


async def post(http, url: str, body: bytes, headers: dict | None = None) -> tuple[Any, float]:
    """POST ``body`` (JSON bytes) to /score: (status or the exception's name, seconds)."""
    import httpx

    start = time.perf_counter()
    try:
        r = await http.post(f"{url}/score", content=body,
                            headers={"Content-Type": "application/json", **(headers or {})})
        status = r.status_code
    except httpx.HTTPError as exc:
        status = type(exc).__name__
    return status, time.perf_counter() - start


async def light_load(url: str, auth: dict, clients: int, stop: float) -> dict:
    """``clients`` light clients posting one small record back to back until ``stop``
    (``time.perf_counter()``): their latencies and statuses."""
    import httpx

    lat: list[float] = []
    statuses: dict[Any, int] = {}

    async def one(k: int) -> None:
        async with httpx.AsyncClient(timeout=60, headers=auth) as http:
            body = json.dumps(light_body(k)).encode()
            while time.perf_counter() < stop:
                status, took = await post(http, url, body)
                lat.append(took)
                statuses[status] = statuses.get(status, 0) + 1

    await asyncio.gather(*(one(k) for k in range(clients)))
    return {"latencies": lat, "statuses": statuses}


async def heavy_posts(url: str, auth: dict, bodies: Callable[[int], dict], clients: int,
                      stop: float, timeout: float = 300) -> list[tuple[Any, float]]:
    """``clients`` clients posting ``bodies(i)`` back to back (each at least once) until
    ``stop``: (status, seconds) of each request."""
    import httpx

    out: list[tuple[Any, float]] = []
    count = iter(range(10 ** 9))

    async def one() -> None:
        async with httpx.AsyncClient(timeout=timeout, headers=auth) as http:
            while True:
                i = next(count)  # built in a thread: the light clients' loop goes on
                data = await asyncio.to_thread(
                    lambda: json.dumps(bodies(i), ensure_ascii=False).encode())
                out.append(await post(http, url, data))
                if time.perf_counter() >= stop:
                    return

    await asyncio.gather(*(one() for _ in range(clients)))
    return out


TRIGGERS = [  # a refusal made before the body is read, each without a token unless it needs one
    ("POST /score", {"Content-Type": "text/plain"}, True),  # 415
    ("POST /score", {"Content-Type": "application/json"}, False),  # 401
    ("POST /admin", {"Content-Type": "application/json"}, True),  # 404
    ("POST /score", {"Content-Type": "application/json", "Host": "attacker.example"}, True),  # 421
]


TRIGGER_STATUSES = {"415", "401", "404", "421"}


async def trickle(url: str, token: str, sockets: int, seconds: float) -> dict:
    """``sockets`` connections, each a refusal's trigger (:data:`TRIGGERS`, in turn) announcing
    1 MB and then sending one byte a second for ``seconds``: when each was closed, and the
    statuses the server answered."""
    host, port = url.removeprefix("http://").split(":")
    closed: list[float] = []
    statuses: dict[str, int] = {}
    start = time.perf_counter()

    async def one(k: int) -> None:
        line, headers, with_token = TRIGGERS[k % len(TRIGGERS)]
        headers = {"Host": f"{host}:{port}", **headers, "Content-Length": "1000000"}
        if with_token:
            headers["Authorization"] = f"Bearer {token}"
        head = f"{line} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
        try:
            reader, writer = await asyncio.open_connection(host, int(port))
        except OSError:
            statuses["connect failed"] = statuses.get("connect failed", 0) + 1
            return
        writer.write(head.encode())
        got = b""
        end = start + seconds
        try:
            while time.perf_counter() < end:
                writer.write(b"x")
                await writer.drain()
                try:
                    chunk = await asyncio.wait_for(reader.read(4096), 1.0)
                    if not chunk:
                        break
                    got += chunk
                except asyncio.TimeoutError:
                    pass
            else:
                closed.append(float("inf"))
                return
        except OSError:
            pass
        finally:
            writer.close()
        closed.append(time.perf_counter() - start)
        status = got.split(b" ", 2)[1].decode() if got.startswith(b"HTTP/") else "none"
        statuses[status] = statuses.get(status, 0) + 1
        if status not in TRIGGER_STATUSES:
            statuses[got.rpartition(b"\r\n\r\n")[2][:120].decode(errors="replace")] = 0

    await asyncio.gather(*(one(k) for k in range(sockets)))
    return {"closed": closed, "statuses": statuses}


async def slow_readers(url: str, token: str, body: bytes, readers: int, seconds: float,
                       pid: int) -> dict:
    """``readers`` clients posting ``body`` (a large reply) and reading the reply at 1 KB/s
    (a 4 KB receive buffer) for at most ``seconds``: when each saw its connection end, the bytes
    each had read, and the server's open sockets every 5 s."""
    import socket as socketlib

    host, port = url.removeprefix("http://").split(":")
    head = (f"POST /score HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode()
    dropped: list[float] = []
    read: list[int] = []
    start = time.perf_counter()

    async def one() -> None:
        s = socketlib.socket()
        s.setsockopt(socketlib.SOL_SOCKET, socketlib.SO_RCVBUF, 4096)
        s.setblocking(False)
        await asyncio.get_running_loop().sock_connect(s, (host, int(port)))
        reader, writer = await asyncio.open_connection(sock=s, limit=1024)
        writer.write(head + body)
        n = 0
        try:
            while time.perf_counter() < start + seconds:
                chunk = await reader.read(1024)
                if not chunk:
                    break
                n += len(chunk)
                await asyncio.sleep(1.0)
            else:
                dropped.append(float("inf"))
                read.append(n)
                return
        except OSError:
            pass
        finally:
            writer.close()
        dropped.append(time.perf_counter() - start)
        read.append(n)

    async def count() -> list[int]:
        out = []
        while time.perf_counter() < start + seconds:
            out.append(open_sockets(pid))
            await asyncio.sleep(5)
        return out

    *_, sockets = await asyncio.gather(*(one() for _ in range(readers)), count())
    return {"dropped": dropped, "read": read, "sockets": sockets}


async def cpu_watch(pid: int, stop: asyncio.Event, every: float = 0.05) -> list[tuple[float, float]]:
    """(``time.perf_counter()``, CPU seconds) of ``pid`` every ``every`` s until ``stop``."""
    out = []
    while not stop.is_set():
        out.append((time.perf_counter(), cpu_seconds(pid)))
        await asyncio.sleep(every)
    return out


def busy_until(samples: list[tuple[float, float]], after: float, share: float = 0.3) -> float:
    """Seconds after ``after`` until the last 50 ms sample in which the process used more than
    ``share`` of a core (0 if none)."""
    last = after
    for (t0, c0), (t1, c1) in zip(samples, samples[1:]):
        if t1 > after and c1 - c0 > share * (t1 - t0):
            last = t1
    return last - after
