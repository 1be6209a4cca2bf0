"""``citetrain serve``'s command line, refused before anything starts: a blank token, both token
flags, an unreadable token file, a token file of several lines, a teacher judge without a token, a
queue smaller than a request; the token read from a file or the environment with its whitespace
dropped; the workers' environment without the token."""
from __future__ import annotations

import pytest

from citetrain.cli.main import main
from citetrain.errors import CitetrainError
from citetrain.serve.config import ENV_CONFIG, ENV_TOKEN, ENV_TOKEN_FILE, ServeConfig
from citetrain.serve.server import check_judge, read_token, worker_environment


@pytest.mark.parametrize("argv, message", [
    (["--token", ""], "--token: the token is blank"),
    (["--token", "  \t"], "--token: the token is blank"),
    (["--token", "a", "--token-file", "f"], "--token and --token-file: give one"),
    (["--token-file", "/nonexistent/token"], "--token-file: cannot read /nonexistent/token"),
    (["--max-queue", "10"], "--max-queue: max_queue (10) must hold one request of max_items (64)"),
    (["--max-nli-calls", "0"], "--max-nli-calls: Input should be greater than or equal to 1"),
])
def test_bad_settings_are_one_line_before_the_server_starts(argv, message, capsys, monkeypatch):
    monkeypatch.delenv(ENV_TOKEN, raising=False)
    assert main(["serve", "nli:lexical", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(f"citetrain serve: error: {message}"), err
    assert "\n" not in err


def test_the_token_comes_from_a_file_or_the_environment_stripped(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_TOKEN, raising=False)
    assert read_token(None, None) is None
    (tmp_path / "t").write_text("  s3cret \n")
    assert read_token(None, str(tmp_path / "t")) == "s3cret"
    monkeypatch.setenv(ENV_TOKEN, " from-env\n")
    assert read_token(None, None) == "from-env"
    assert read_token(" given ", None) == "given"  # the flag wins over the environment
    monkeypatch.setenv(ENV_TOKEN, "   ")
    with pytest.raises(CitetrainError, match=r"\$CITETRAIN_SERVE_TOKEN: the token is blank"):
        read_token(None, None)
    (tmp_path / "blank").write_text("\n")
    with pytest.raises(CitetrainError, match="the token is blank"):
        read_token(None, str(tmp_path / "blank"))
    assert ServeConfig(judge="nli:lexical", token=" x ").token == "x"
    with pytest.raises(ValueError, match="blank token"):
        ServeConfig(judge="nli:lexical", token=" ")


def test_a_teacher_judge_needs_a_token_and_never_shows_its_endpoint(monkeypatch):
    monkeypatch.setenv("OPENAI_BASE_URL", "http://upstream.example:9/v1")
    with pytest.raises(CitetrainError) as err:
        check_judge("teacher:gpt-4o-mini")
    assert "served only with a token" in str(err.value) and "upstream" not in str(err.value)
    check_judge("teacher:gpt-4o-mini", token="t")  # accepted with one


def test_judge_errors_never_echo_a_url():
    from citetrain.serve.app import one_line

    text = one_line("ConnectError: cannot reach https://api.example.com/v1/chat?key=abc\n(retry)")
    assert text == "ConnectError: cannot reach <url> (retry)"


@pytest.mark.parametrize("text", ["first\nsecond\n", "a\n\n  b", "tok\r\nen"])
def test_a_token_file_of_several_lines_is_one_line_naming_the_file(text, tmp_path, capsys,
                                                                    monkeypatch):
    monkeypatch.delenv(ENV_TOKEN, raising=False)
    path = tmp_path / "token"
    path.write_text(text, newline="")
    assert main(["serve", "nli:lexical", "--token-file", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (f"citetrain serve: error: --token-file {path}: 2 non-empty lines; the token is "
                   "exactly one line")
    (tmp_path / "one").write_text("\n  tok3n  \n\n")  # blank lines around the one line are fine
    assert read_token(None, str(tmp_path / "one")) == "tok3n"
    monkeypatch.setenv(ENV_TOKEN, "one\ntwo")
    with pytest.raises(CitetrainError, match=r"\$CITETRAIN_SERVE_TOKEN: 2 non-empty lines"):
        read_token(None, None)
    with pytest.raises(ValueError, match="one line"):
        ServeConfig(judge="nli:lexical", token="one\ntwo")


def test_the_workers_get_the_token_from_a_private_file_not_the_environment(monkeypatch):
    import os
    import stat

    monkeypatch.setenv(ENV_TOKEN, "s3cret")
    config = ServeConfig(judge="nli:lexical", token="s3cret", workers=2)
    with worker_environment(config):
        assert ENV_TOKEN not in os.environ and "s3cret" not in os.environ[ENV_CONFIG]
        path = os.environ[ENV_TOKEN_FILE]
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        assert stat.S_IMODE(os.stat(os.path.dirname(path)).st_mode) == 0o700
        assert ServeConfig.from_env() == config
    assert not os.path.exists(os.path.dirname(path))
    assert os.environ[ENV_TOKEN] == "s3cret" and ENV_TOKEN_FILE not in os.environ  # restored
