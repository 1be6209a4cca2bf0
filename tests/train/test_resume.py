"""Which checkpoint a run resumes from: the last complete one, never one cut by a kill."""
import json

from citetrain.train.resume import last_complete_checkpoint


def checkpoint(out, step, state='{"global_step": 0}'):
    folder = out / f"checkpoint-{step}"
    folder.mkdir(parents=True)
    (folder / "adapter_model.safetensors").write_bytes(b"w")
    if state is not None:
        (folder / "trainer_state.json").write_text(state)
    return str(folder)


def test_the_highest_complete_checkpoint_by_step_number(tmp_path):
    assert last_complete_checkpoint(tmp_path) is None
    checkpoint(tmp_path, 2)
    want = checkpoint(tmp_path, 10, json.dumps({"global_step": 10}))
    checkpoint(tmp_path, 12, state=None)  # killed before the trainer state was written
    checkpoint(tmp_path, 14, state='{"global_st')  # killed while writing it
    (tmp_path / "checkpoint-99.tmp").mkdir()  # not a checkpoint name
    (tmp_path / "checkpoint-50").write_text("a file")
    assert last_complete_checkpoint(tmp_path) == want  # 10 > 2 although "2" > "10" as text
