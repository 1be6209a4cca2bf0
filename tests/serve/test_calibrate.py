"""``citetrain serve JUDGE --calibrate``: the adversarial records ask every pair and triple of
their passages, fill the work asked of them, and the flags printed follow from the slowest rate
seen (tiny shapes here, so that it runs in seconds)."""
import random

from citetrain.cli.main import main
from citetrain.judges.registry import make_judge
from citetrain.serve import calibrate as C
from citetrain.serve.config import ServeConfig
from citetrain.serve.cost import calls_per_statement, plan_records


def test_a_spread_record_asks_every_pair_and_triple():
    judge = make_judge("nli:lexical", progress=False, cache=False)
    record = C.spread_record("r", 8, 2, 300, random.Random(0))
    assert all(len(d.text) >= 300 for d in record.docs)
    judge.score([record], progress=False)
    asked = judge.engine.stats.model_pairs
    # every doc alone, the union, the union less each, 28 pairs and 56 triples, per statement
    assert asked >= 2 * (8 + 1 + 8 + 28 + 56) - 2 and asked <= 2 * calls_per_statement(8)


def test_shapes_are_filled_under_the_work_asked_and_the_flags_follow_the_slowest_rate():
    judge = make_judge("nli:lexical", progress=False, cache=False)
    config = ServeConfig(judge="nli:lexical", max_work=200_000)
    records = C.shape_records((2, 10, 0), judge, config, 0.5, seed=1)
    work = sum(plan_records(records, config, judge).costs)
    assert 0.3 * 100_000 < work <= 100_000
    lines: list[str] = []
    max_work, batch_work = C.calibrate(judge, config, shapes=[(1, 10, 0), (2, 6, 500)],
                                       log=lines.append)
    rates = [float(line.split()[-1]) for line in lines[1:]]  # us per unit, two decimals
    assert len(rates) == 2 and all(r > 0 for r in rates)
    assert abs(max_work * max(rates) / 1e6 - 5.0) < 5.0 * 0.01 / min(rates) + 0.05
    assert batch_work * 19 <= max_work <= batch_work * 21  # 5 s against 250 ms


def test_the_command_prints_the_flags(capsys, monkeypatch):
    monkeypatch.setattr(C.calibrate, "__kwdefaults__", {**C.calibrate.__kwdefaults__,
                                                          "shapes": ((1, 6, 0), (1, 100, 9000))})
    assert main(["serve", "nli:lexical", "--calibrate", "--max-work", "100000"]) == 0
    out = capsys.readouterr().out
    assert "1 x 6 x 0" in out and "1 x 100 x 9000" in out and "skipped" in out
    assert out.strip().splitlines()[-1].startswith("nli:lexical on this machine: --max-work ")
