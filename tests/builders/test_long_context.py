"""Records with many passages (60 each) build and score in a test-sized time: the subset search
asks about linearly many subsets, and the build's gold targets hold the synthetic gold."""
from __future__ import annotations

import json
from pathlib import Path

from citetrain.analysis.subsets import auto_pool
from citetrain.builders.pipeline import build
from citetrain.builders.spec import BuildSpec
from citetrain.metrics.citeeval import citeeval
from citetrain.nli.registry import make_engine
from citetrain.synth.records import synth_records


def test_sixty_passages_build_and_score(tmp_path: Path):
    records = synth_records(3, seed=3, n_docs=(60, 60))
    assert all(len(r.docs) == 60 for r in records)
    src = tmp_path / "long.jsonl"
    src.write_text("".join(json.dumps(r.to_dict()) + "\n" for r in records))
    spec = BuildSpec.model_validate({
        "name": "long", "kind": "refiner", "sources": [{"path": str(src)}], "nli": "lexical",
        "max_subset": 3, "out": str(tmp_path / "built")})
    build(spec, progress=False, log=lambda s: None)
    rows = [json.loads(line) for f in sorted((tmp_path / "built" / "work").glob("shard-*.jsonl"))
            for line in f.read_text().splitlines()]
    statements = [r for r in rows if r["text"].strip()]
    assert statements
    n = 60
    for row in statements:  # singles, the union, the pool's union, the pool minus each, pairs, triples
        pool = auto_pool(n, 3)
        assert row["calls"] <= n + 2 + pool + sum((pool * (pool - 1) // 2, pool * (pool - 1) * (pool - 2) // 6))
    engine = make_engine("lexical", cache=False, progress=False)
    result = citeeval(records, engine)
    # per statement: its context and cited rounds, the singles, the unions and the pool's budget
    # (citetrain.analysis.subsets: max(2000, 5n) pairs and triples)
    assert result.per_record and engine.stats.requested / len(result.per_statement) < 2 * n + 2000
