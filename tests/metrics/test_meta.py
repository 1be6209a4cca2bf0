"""Meta-evaluation against hand-computed correlations, AUCs (pair counting) and NDCG."""
from __future__ import annotations

import math

import pytest

from citetrain.metrics.meta import (
    binary_roc_auc,
    bootstrap_auc_difference,
    correlations,
    meta_evaluate,
    ndcg_at,
    ovo_roc_auc,
    support_auc,
    support_levels,
)


def test_correlations_four_items():
    # scores [1, 2, 4, 3] vs labels [1, 2, 3, 4]:
    # Kendall: 6 pairs, only (3rd, 4th) discordant -> (5 - 1) / 6 = 2/3
    # Spearman: rank differences 0, 0, 1, -1 -> 1 - 6 * 2 / (4 * 15) = 0.8
    # Pearson: deviations (-1.5, -.5, 1.5, .5) and (-1.5, -.5, .5, 1.5): 4 / 5 = 0.8
    c = correlations([1, 2, 4, 3], [1, 2, 3, 4])
    assert c == pytest.approx({"pearson": 0.8, "spearman": 0.8, "kendall": 2 / 3})
    assert all(math.isnan(v) for v in correlations([1, 1, 1], [0, 1, 2]).values())


def test_ovo_roc_auc_by_counting_pairs():
    scores = [0.9, 0.4, 0.6, 0.2, 0.5]
    labels = [2, 2, 1, 0, 0]
    auc = ovo_roc_auc(scores, labels)
    # full {0.9, 0.4} vs no {0.2, 0.5}: 0.9>0.2, 0.9>0.5, 0.4>0.2, not 0.4>0.5 -> 3/4
    # full vs partial {0.6}: 0.9>0.6 only -> 1/2; partial vs no: 0.6 beats both -> 1
    assert auc == pytest.approx({"fs_vs_ns": 0.75, "fs_vs_ps": 0.5, "ps_vs_ns": 1.0,
                                 "mean": 0.75})
    # names are read too
    names = ["full", "FS", "partially_supported", "no", "not_supported"]
    assert ovo_roc_auc(scores, names) == auc


def test_ovo_missing_class_is_nan_and_noted():
    out = meta_evaluate([0.9, 0.1, 0.8, 0.3], [2, 0, 2, 0])
    assert out["fs_vs_ns"] == 1.0 and math.isnan(out["fs_vs_ps"]) and math.isnan(out["ps_vs_ns"])
    assert out["roc_auc_mean"] == 1.0  # NaNs left out of the mean
    assert len(out["notes"]) == 2 and "fs_vs_ps" in out["notes"][0]


def test_binary_roc_auc_ties_and_single_class():
    # positives {0.5, 0.7}, negatives {0.5, 0.1}: 0.5 vs 0.5 tie counts half, others won:
    # (0.5 + 1 + 1 + 1) / 4 = 0.875
    assert binary_roc_auc([0.5, 0.7, 0.5, 0.1], [1, 1, 0, 0]) == 0.875
    assert math.isnan(binary_roc_auc([0.1, 0.2], [1, 1]))
    out = meta_evaluate([0.5, 0.7, 0.5, 0.1], [1, 1, 0, 0])
    assert out["roc_auc"] == 0.875 and "fs_vs_ns" not in out


def test_ndcg_per_group_then_mean():
    scores = [0.9, 0.8, 0.1, 0.3, 0.7, 0.5]
    labels = [0, 2, 1, 1, 2, 2]
    groups = ["s1", "s1", "s1", "s2", "s2", "s3"]
    # s1 ranks gains (0, 2, 1): DCG = 2/log2(3) + 1/log2(4) = 1.761860; ideal (2, 1, 0):
    # 2 + 1/log2(3) = 2.630930 -> 0.669672. s2 ranks (2, 1), already ideal -> 1. s3 skipped.
    expected = (1.761860 / 2.630930 + 1) / 2
    out = ndcg_at(scores, labels, groups, ks=(1, 5))
    assert out["ndcg@5"] == pytest.approx(expected, abs=1e-5)
    assert out["ndcg@1"] == pytest.approx(0.5)  # s1's top item has gain 0, s2's is ideal
    full = meta_evaluate(scores, labels, groups)
    assert full["ndcg@10"] == pytest.approx(expected, abs=1e-5) and full["ndcg_groups"] == 2
    assert "ndcg: 1 groups of one candidate skipped" in full["notes"]


def test_likert_labels_and_errors():
    out = meta_evaluate([0.1, 0.5, 0.9], [1, 3, 5])
    assert out["pearson"] == pytest.approx(1.0) and "roc_auc" not in out
    assert list(support_levels(["Full", "partial", "NS"])) == [2, 1, 0]
    with pytest.raises(ValueError):
        support_levels(["maybe"])
    with pytest.raises(ValueError):
        correlations([0.1], [1, 2])


def test_support_auc_is_meta_evaluates_roc_auc_alone():
    # levels: fs_vs_ns 1, fs_vs_ps 1/2 (0.6 vs 0.6 and 0.6 vs 0.2: one tie, one right),
    # ps_vs_ns 1 -> mean (1 + 3/4 + 1) / 3; two levels 0 / 2 read one-vs-one (fs_vs_ns only)
    scores, levels = [0.6, 0.6, 0.2, 0.1], [2, 1, 1, 0]
    assert support_auc(scores, levels) == pytest.approx((1 + 0.75 + 1) / 3)
    assert support_auc(scores, levels) == meta_evaluate(scores, levels)["roc_auc_mean"]
    assert support_auc([0.9, 0.1, 0.5], [2, 0, 0]) == 1.0
    assert support_auc([0.9, 0.6, 0.5, 0.1], [1, 0, 1, 0]) == 0.75  # binary: 3 of 4 pairs ordered
    assert math.isnan(support_auc([0.1, 0.2], [3, 4]))  # a 1-5 scale has none


def test_bootstrap_auc_difference_is_paired_and_resamples_claims():
    labels = [2, 0] * 10
    right = [float(y) + i / 100 for i, y in enumerate(labels)]
    wrong = [2 - x for x in right]
    res = bootstrap_auc_difference([right, right], wrong, labels, [f"c{i}" for i in range(20)],
                                   resamples=100)
    assert res["difference"] == 1.0 and res["sd"] == pytest.approx(0, abs=1e-12)
    assert (res["low"], res["high"], len(res["distribution"])) == (1.0, 1.0, 100)
    # the baseline itself: 0 in every resample, since both read the same draw
    same = bootstrap_auc_difference([wrong], wrong, labels, list(range(20)), resamples=50)
    assert same["difference"] == 0 and not same["distribution"].any()
    # pairs of one claim are drawn together: two claims, each with both levels and ordered
    # right by the scorer, so every resample (a, a / a, b / b, b) reads 1 against 0.5
    two = bootstrap_auc_difference([right], [0.5] * 20, labels, ["a"] * 10 + ["b"] * 10,
                                   resamples=30)
    assert two["difference"] == 0.5 and set(two["distribution"]) == {0.5}
    with pytest.raises(ValueError, match="two or more claims"):
        bootstrap_auc_difference([right], wrong, labels, ["c"] * 20)
    with pytest.raises(ValueError, match="one value per item"):
        bootstrap_auc_difference([right[:3]], wrong, labels, list(range(20)))
