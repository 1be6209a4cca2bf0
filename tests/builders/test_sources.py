"""Build sources: ``synthetic: {n, seed, docs}`` reads the records ``citetrain synth`` writes."""
import pytest
from pydantic import ValidationError

from citetrain.builders.sources import read_sources
from citetrain.builders.spec import SourceSpec
from citetrain.synth.records import synth_records


def test_synthetic_source_with_many_passages_is_citetrain_synth_docs():
    got = read_sources([SourceSpec(synthetic={"n": 5, "seed": 2, "docs": [12, 16]})])
    want = synth_records(5, 2, n_docs=(12, 16))
    assert [i.record.to_dict() for i in got.items] == [r.to_dict() for r in want]
    assert all(12 <= len(i.record.docs) <= 16 for i in got.items)
    assert got.files[0]["path"] == "synthetic:n=5,seed=2,docs=12-16"
    default = read_sources([SourceSpec(synthetic={"n": 5, "seed": 2})])
    assert default.files[0]["path"] == "synthetic:n=5,seed=2"
    assert all(4 <= len(i.record.docs) <= 6 for i in default.items)


@pytest.mark.parametrize("docs", [[2, 5], [7, 6]])
def test_synthetic_docs_out_of_range_is_refused(docs):
    with pytest.raises(ValidationError, match="3 <= min <= max"):
        SourceSpec(synthetic={"n": 5, "docs": docs})
