"""experiments/selfcite_demo.py: the table's mean ± sd over seeds (values by hand)."""
import argparse

from experiments.selfcite_demo import ROWS, table


def test_table_is_mean_and_sample_sd_over_seeds():
    def row(r, lbc, f1):
        return {"selfcite_reward": r, "longbench_cite_f1": lbc, "citation_f1": f1}

    scores = {s: {name: row(0.1 * s, 10.0 + 2 * s, 20.0) for name in ROWS} for s in (0, 1, 2)}
    args = argparse.Namespace(heldout=60, docs=(12, 16))
    text = table(scores, args)
    # reward 0, 0.1, 0.2: mean 0.1, sd 0.1; LongBench-Cite 10, 12, 14: mean 12, sd 2; ALCE 20, sd 0
    assert "| SFT + SelfCite DPO | 0.100 ± 0.100 | 12.0 ± 2.0 | 20.0 ± 0.0 |" in text
    assert text.startswith("60 held-out synthetic records of 12-16 passages per seed, seeds 0, 1, 2")
    assert len([ln for ln in text.splitlines() if ln.startswith("| ") and "±" in ln]) == len(ROWS)
