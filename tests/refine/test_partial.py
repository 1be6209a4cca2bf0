"""The partial file of ``citetrain refine``: a line cut by a kill is dropped, not built upon."""
import json

import pytest

from citetrain.errors import CitetrainError
from citetrain.records import Record
from citetrain.refine.partial import PartialRefine


@pytest.fixture
def job(tmp_path):
    src = tmp_path / "in.jsonl"
    src.write_text('{"id": "a"}\n')
    return PartialRefine(tmp_path / "out.jsonl.partial.jsonl", str(src), str(tmp_path))


def lines(*rows) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def test_a_line_cut_by_a_kill_is_removed_so_the_next_append_starts_clean(job):
    head = lines(job.header, {"id": "a", "output": "A [1]."}, {"id": "b", "output": "B."})
    job.path.write_text(head + '{"id": "c", "outp')
    assert job._load() == {"a": "A [1].", "b": "B."}
    assert job.path.read_text() == head  # the torn tail is gone


@pytest.mark.parametrize("tail", ["", '{"id": "c", "output": "C."}'])
def test_whole_lines_are_kept_with_or_without_the_last_newline(job, tail):
    job.path.write_text(lines(job.header, {"id": "a", "output": "A."}) + tail)
    want = {"a": "A.", **({"c": "C."} if tail else {})}
    assert job._load() == want
    assert job.path.read_text().endswith("\n") and job.path.read_text().count("\n") == 1 + len(want)


def test_a_torn_or_foreign_header_is_refused_with_one_line(job):
    job.path.write_text('{"source_sha')
    with pytest.raises(CitetrainError, match="another input or refiner; delete it"):
        job._load()
    job.path.write_text(lines({"source_sha256": "x", "refiner": "y"}))
    with pytest.raises(CitetrainError, match="another input or refiner"):
        job._load()


def test_run_resumes_after_a_cut_line_without_redoing_finished_records(job):
    job.path.write_text(lines(job.header, {"id": "a", "output": "A [2]."}) + '{"id": "b", "ou')
    asked = []

    def fake_refine(records, counts):
        asked.extend(r.id for r in records)
        return [r.model_copy(update={"output": r.output + " [1]"}) for r in records], counts

    recs = [Record(id=i, question="q", docs=[], output=i.upper()) for i in "abc"]
    got, counts = job.run(recs, fake_refine, chunk=1, progress=False)
    assert asked == ["b", "c"] and counts["resumed"] == 1
    assert [r.output for r in got] == ["A [2].", "B [1]", "C [1]"]
    assert job._load() == {"a": "A [2].", "b": "B [1]", "c": "C [1]"}
