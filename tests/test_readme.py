"""The README's commands exist and CI runs the README's test command."""
import re
import shlex
from pathlib import Path

import pytest

from citetrain.cli.main import COMMANDS, main

REPO = Path(__file__).resolve().parents[1]
README = (REPO / "README.md").read_text()


def _code_lines() -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", README, flags=re.S)
    return [ln.strip() for b in blocks for ln in b.splitlines() if ln.strip() and not ln.startswith("#")]


def test_readme_leads_with_exactly_two_setup_commands():
    first = re.search(r"```bash\n(.*?)```", README, flags=re.S).group(1)
    cmds = [ln for ln in first.splitlines() if ln.strip() and not ln.startswith("#")]
    assert len(cmds) == 2
    assert cmds[0].startswith("pip install torch==2.13.0") and "citetrain " in cmds[0]
    assert cmds[1].startswith("pip install torch==2.13.0") and "pytest" in cmds[1]


def test_ci_runs_the_readme_test_command():
    first = re.search(r"```bash\n(.*?)```", README, flags=re.S).group(1)
    test_cmd = [ln for ln in first.splitlines() if "pytest" in ln][0].strip()
    assert test_cmd in (REPO / ".ci" / "run").read_text()


@pytest.mark.parametrize("line", [ln for ln in _code_lines() if "citetrain " in ln])
def test_every_citetrain_command_in_readme_has_help(line, capsys):
    words = shlex.split(line.split("&&")[-1].split("#")[0])
    sub = words[words.index("citetrain") + 1]
    assert sub in COMMANDS, f"README shows unknown command: {line}"
    with pytest.raises(SystemExit) as e:
        main([sub, "--help"])
    assert e.value.code == 0
