"""``bench/recheck_results.py``'s comparison logic: figures and spreads read from table cells, drift
against them, and ``--update`` stamping a page, on a tiny fake page with made-up measurements
(nothing heavy runs)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))

import recheck_results as rr  # noqa: E402

PAGE = """# Results

## Counts

| what | figure | measured at | last re-checked |
|---|---|---|---|
| calls | 922 model pairs in **31** batches against 3,145 calls: 6.5 s | abc1234 |  |
| the same, on a GPU | 46.2 pairs/s | abc1234 | not re-checked (GPU) |

## Quality

Prose with a 1.0 figure that is not in a table.

| refiner | seeds | removed | half wrong | measured at | last re-checked |
|---|---|---:|---:|---|---|
| `spans` | 0-9 | **97.5** | **98.21 ± 0.19** | def5678 | 2026-01-01 def5678 |
| `cover` | | 95.6 | 29.3 (P ≥ 0.5) | def5678 |  |
"""


def test_figures_and_spreads_of_a_cell() -> None:
    figs = rr.parse_figures("**0.830 ± 0.006** (+0.037)")
    assert [(f.value, f.spread, f.decimals) for f in figs] == [(0.830, 0.006, 3)]
    assert [f.value for f in rr.parse_figures("**23.4 / 538.3 / 1,400.0** pairs")] == [23.4, 538.3, 1400.0]
    assert [f.value for f in rr.parse_figures("29.3 (P ≥ 0.5)")] == [29.3]  # parenthesised: not a figure
    assert [f.value for f in rr.parse_figures("−0.010 ± 0.104")] == [-0.010]
    assert rr.parse_figures("42 / 1 / 2")[0].decimals == 0
    assert rr.parse_figures("T5-11B, d7d772e") == []  # digits inside words are not figures


def test_tolerance_is_the_spread_or_the_printed_precision() -> None:
    spread, = rr.parse_figures("98.21 ± 0.19")
    assert spread.tolerance == pytest.approx(0.19)
    assert spread.holds(98.40) and spread.holds(98.02) and not spread.holds(98.41)
    plain, = rr.parse_figures("0.540")
    assert plain.tolerance == pytest.approx(0.0005)
    assert plain.holds(0.5404) and not plain.holds(0.54055)
    count, = rr.parse_figures("3,145")
    assert count.holds(3145) and not count.holds(3146)


def test_compare_reports_each_drift() -> None:
    figs = rr.parse_figures("23.4 / 538.3 / 1,400.0")
    assert rr.compare(figs, [23.4, 538.3, 1400.04]) == (True, [])
    ok, detail = rr.compare(figs, [21.7, 538.3, 1398.3])
    assert not ok and len(detail) == 2 and detail[0].startswith("23.4 -> 21.70")
    ok, detail = rr.compare(figs, [23.4])
    assert not ok and "1 figures measured" in detail[0]


def test_rows_are_found_by_section_and_first_cell() -> None:
    lines = PAGE.split("\n")
    row = rr.find_row(lines, "Quality", "`spans`")
    assert row.cell("half wrong") == "**98.21 ± 0.19**"
    assert rr.find_row(lines, "Counts", "calls").cell("measured at") == "abc1234"
    with pytest.raises(LookupError):
        rr.find_row(lines, "Counts", "`spans`")  # another section's row
    with pytest.raises(LookupError):
        rr.find_row(lines, "Quality", "`")  # two rows


def _check(name, section, row, columns, measured, **kw) -> rr.Check:
    return rr.Check(name, section, row, columns, lambda: measured, **kw)


def test_run_check_ok_drift_and_fail() -> None:
    lines = PAGE.split("\n")
    ok = rr.run_check(_check("c", "Counts", "calls", ["figure"], [922, 31, 3145], pick=[0, 1, 2]),
                      lines)
    assert ok.status == "OK" and ok.page == "922 / 31 / 3,145"
    drift = rr.run_check(_check("s", "Quality", "`spans`", ["removed", "half wrong"], [97.5, 97.9]),
                         lines)
    assert drift.status == "DRIFT" and "98.21 ± 0.19 -> 97.90" in drift.detail[0]
    passed = rr.run_check(_check("p", "Quality", "`cover`", ["removed"], True), lines)
    assert passed.status == "OK"

    def boom():
        raise RuntimeError("no data")
    failed = rr.run_check(rr.Check("f", "Quality", "`cover`", ["removed"], boom), lines)
    assert failed.status == "FAIL" and "no data" in failed.detail[0]


def test_update_stamps_only_the_named_rows(tmp_path, monkeypatch) -> None:
    page = tmp_path / "index.md"
    page.write_text(PAGE)
    checks = [_check("calls", "Counts", "calls", ["figure"], [922, 31, 3145], pick=[0, 1, 2]),
              _check("spans", "Quality", "`spans`", ["removed", "half wrong"], [97.5, 98.1]),
              _check("cover", "Quality", "`cover`", ["removed", "half wrong"], [95.6, 30.0])]
    monkeypatch.setattr(rr, "CHECKS", checks)
    monkeypatch.setattr(rr, "git_head", lambda: "fedcba9")
    monkeypatch.setattr(rr, "dirty_code", lambda: [])
    assert rr.main(["--page", str(page), "--update"]) == 1  # cover drifted
    text = page.read_text()
    lines = text.split("\n")
    stamp = rr.find_row(lines, "Counts", "calls").cell(rr.RECHECKED)
    assert stamp.endswith(" fedcba9") and stamp[:4].isdigit()
    assert rr.find_row(lines, "Quality", "`spans`").cell(rr.RECHECKED) == stamp
    assert rr.find_row(lines, "Quality", "`cover`").cell(rr.RECHECKED) == ""  # drift: not stamped
    assert rr.find_row(lines, "Counts", "the same, on a GPU").cell(rr.RECHECKED) == \
        "not re-checked (GPU)"
    # nothing but the stamped cells changed
    changed = [(a, b) for a, b in zip(PAGE.split("\n"), lines) if a != b]
    assert len(changed) == 2 and len(lines) == len(PAGE.split("\n"))
    assert rr.main(["--page", str(page), "--only", "calls,spans"]) == 0


def test_only_and_the_default_set() -> None:
    names = {c.name for c in rr.select(None)}
    assert "quickstart" not in names and "judge-lexical" in names
    assert [c.name for c in rr.select("quickstart")] == ["quickstart"]
    with pytest.raises(SystemExit):
        rr.select("no-such-check")


def test_every_check_finds_its_row_on_the_results_page() -> None:
    lines = rr.PAGE.read_text().split("\n")
    for check in rr.CHECKS:
        row = rr.find_row(lines, check.section, check.row)
        assert rr.RECHECKED in row.header, check.name
        rr.page_figures(row, check)  # the picked figures exist
