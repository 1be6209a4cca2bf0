"""Memories capped in bytes (citetrain/text/memo.py): the oldest entries go once the cap is
passed, a key too large for the cap is answered and not kept, and every memo can be emptied."""
from citetrain.text.memo import MEMOS, TextMemo, clear_memos, deep_size, memo_bytes


def test_a_memo_stays_within_its_bytes_oldest_out_first():
    calls: list[str] = []
    memo = TextMemo(lambda t: calls.append(t) or t.upper(), max_bytes=1000, name="t",
                    weigh=lambda k, v: 100 * len(k))
    for t in ["a", "bb", "cc", "dd", "e"]:  # 100 + 200 + 200 + 200 + 100 = 800
        assert memo(t) == t.upper()
    assert memo.bytes == 800 and len(memo) == 5
    memo("a")
    assert calls.count("a") == 1  # remembered
    memo("ff")  # 1000: within the cap
    memo("gg")  # 1200 > 1000: "a" and then "bb" (the oldest) go
    assert memo.bytes == 900 and "a" not in memo._data and "bb" not in memo._data
    before = dict(memo._data)
    assert memo("zzz") == "ZZZ" and memo._data == before  # 300 * 4 > 1000: answered, not kept
    assert memo in MEMOS and memo_bytes()["t"] == memo.bytes
    clear_memos()
    assert memo.bytes == 0 and len(memo) == 0


def test_deep_size_counts_what_a_value_holds():
    text = "x" * 1000
    assert deep_size((text, text)) > 2000 and deep_size(frozenset({"a" * 500})) > 500
    assert deep_size({"k": [1, 2, "v" * 300]}) > 300
