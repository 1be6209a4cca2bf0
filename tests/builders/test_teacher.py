"""Judge targets from a teacher LLM (a fake OpenAI-compatible server on 127.0.0.1): parsable
outputs kept verbatim, unparsable ones dropped and counted, every prompt asked once."""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import datasets
import pytest

from citetrain.builders.pipeline import build
from citetrain.builders.spec import BuildSpec

from .test_pipeline import engine, write_records

GOOD = "\n".join(f'<editing sentence_id="{k}"> N/A </editing>\n<rating sentence_id="{k}"> 5 </rating>'
                 for k in (1, 2, 3))


@pytest.fixture
def teacher_server():
    prompts: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            prompt = body["messages"][0]["content"]
            prompts.append(prompt)
            # case 0 gets rambling without blocks: unparsable
            text = "I think the citations are fine." if "case 0?" in prompt else GOOD
            data = json.dumps({"choices": [{"message": {"content": text}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, args=(0.01,), daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", prompts
    httpd.shutdown()
    httpd.server_close()


def test_teacher_targets_cached_and_unparsable_dropped(tmp_path, teacher_server, monkeypatch):
    url, prompts = teacher_server
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
