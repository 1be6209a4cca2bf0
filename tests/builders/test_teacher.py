"""Judge targets from a teacher LLM (a fake OpenAI-compatible server on 127.0.0.1): parsable
outputs kept verbatim, unparsable ones dropped and counted, every prompt asked once."""
import datasets

from citetrain.builders.pipeline import build
from citetrain.builders.spec import BuildSpec

from .test_pipeline import engine, write_records

GOOD = "\n".join(f'<editing sentence_id="{k}"> N/A </editing>\n<rating sentence_id="{k}"> 5 </rating>'
                 for k in (1, 2, 3))


def teacher_answer(prompt: str) -> str:
    # case 0 gets rambling without blocks: unparsable
    return "I think the citations are fine." if "case 0?" in prompt else GOOD


def test_teacher_targets_cached_and_unparsable_dropped(tmp_path, server, monkeypatch):
    srv = server(answer=teacher_answer)
    url, prompts = srv.url, srv.prompts
    monkeypatch.setenv("TEACHER_KEY", "sk-test")
    src = write_records(tmp_path / "in.jsonl", 4)
    spec = BuildSpec.model_validate({
        "name": "j", "kind": "judge", "sources": [{"path": str(src)}], "out": str(tmp_path / "o"),
        "judge": {"teacher": {"model": "teacher-x", "base_url": url, "api_key_env": "TEACHER_KEY"}},
        "split": {"validation": 0.0}})
    m = build(spec, engine=engine(tmp_path), progress=False, log=lambda s: None)
    assert len(prompts) == 4
    assert m["dropped"] == {"teacher output unparsable": 1} and m["examples"]["train"] == 3
    dd = datasets.load_from_disk(str(tmp_path / "o" / "dataset"))
    assert set(dd["train"]["completion"]) == {"\n" + GOOD}
    # built again (e.g. after a kill): every answer comes from the cache
    build(spec, engine=engine(tmp_path), progress=False, log=lambda s: None)
    assert len(prompts) == 4
