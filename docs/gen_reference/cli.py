"""The command-line reference, read from citetrain's own argparse parsers."""
from __future__ import annotations

import argparse
import inspect
import re

from .markdown import cell, code, plain, table, value

HEADER = ["Argument", "Type", "Help", "Default", "Choices", "Notes"]
_STATED = re.compile(r"(?:^|[(;,]\s*)(?:default:?|without it:)\s+([^;)]+)")
"""``(default X)``, ``(default: X)``, ``; default X``, ``without it: X``: a default the help
states (up to ``;`` or ``)``). Where the parser's default is None, the code fills it in later
and the help says with what."""


def subparsers(parser: argparse.ArgumentParser) -> dict[str, tuple[str, argparse.ArgumentParser]]:
    """Each subcommand of ``parser``: name -> (one-line help, its parser), in the parser's order."""
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    helps = {a.dest: a.help or "" for a in action._choices_actions}
    return {name: (helps.get(name, ""), sub) for name, sub in action.choices.items()}


def arguments(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The arguments a user gives (``--help`` and the subcommand slot left out)."""
    return [a for a in parser._actions
            if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))]


def argument_name(action: argparse.Action) -> str:
    """``--opt VALUE`` / ``-o, --opt`` / ``NAME`` for a positional argument."""
    if not action.option_strings:
        return action.metavar or action.dest
    names = ", ".join(action.option_strings)
    if action.nargs == 0:
        return names
    metavar = action.metavar or action.dest.upper()
    return f"{names} {metavar if isinstance(metavar, str) else ' '.join(metavar)}"


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    if not action.help or action.help == argparse.SUPPRESS:
        return ""
    return parser._get_formatter()._expand_help(action)


def _type_name(kind) -> str:
    """A ``type=`` converter's name: ``int``, ``float``, or a function's return annotation."""
    if kind is None:
        return "str"
    if kind in (int, float, str):
        return kind.__name__
    returns = inspect.signature(kind).return_annotation
    if returns is inspect.Signature.empty:
        return getattr(kind, "__name__", "str")
    return returns if isinstance(returns, str) else getattr(returns, "__name__", str(returns))


def argument_type(action: argparse.Action) -> str:
    """What the argument takes: ``flag`` (no value), ``int``, ``float``, ``str``, ``choice`` (one
    of its Choices), ``list[...]`` (repeatable or several values)."""
    if action.nargs == 0:
        return "flag"
    one = "choice" if action.choices else _type_name(action.type)
    if isinstance(action, argparse._AppendAction) or action.nargs in ("*", "+"):
        return f"list[{one}]"
    return one


def stated_default(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """The default the help states (``default 300``, ``default: the suite's value``), or ``""``."""
    m = _STATED.search(" ".join(_help(parser, action).split()))
    return m.group(1).strip() if m else ""


def has_default(action: argparse.Action) -> bool:
    """Whether the parser itself holds a default worth printing (not None, SUPPRESS or False)."""
    d = action.default
    return not (d is None or d is argparse.SUPPRESS or d is False)


def default_text(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """The Default cell: the parser's default; else the one the help states (the code fills it in
    later: from the suite / recipe, or a library's own); ``off`` for a flag; ``required``."""
    if action.required:
        return "required"
    if isinstance(action, (argparse._VersionAction, argparse._HelpAction)):
        return ""
    if action.nargs == 0 and action.default is not None:
        return "off"  # a flag's default is not giving it (store_true False, store_false True)
    if has_default(action):
        d = action.default
        return code(d if isinstance(d, str) else value(d))
    return cell(plain(stated_default(parser, action)))


def _row(parser: argparse.ArgumentParser, action: argparse.Action) -> list[str]:
    notes = []
    if isinstance(action, argparse._AppendAction):
        notes.append("repeatable")
    choices = ", ".join(code(c) for c in action.choices) if action.choices else ""
    return [code(argument_name(action)), cell(argument_type(action)),
            cell(plain(_help(parser, action))), default_text(parser, action), choices,
            ", ".join(notes)]


def command_section(name: str, summary: str, parser: argparse.ArgumentParser) -> str:
    """One subcommand: its summary, description, usage line and a table of its arguments."""
    usage = " ".join(parser.format_usage().removeprefix("usage: ").split())
    parts = [f"## citetrain {name}\n", f"{plain(summary)}\n" if summary else ""]
    if parser.description:
        parts.append(f"{plain(parser.description)}\n")
    parts.append(f"```text\n{usage}\n```\n")
    rows = [_row(parser, a) for a in arguments(parser)]
    if rows:
        parts.append(table(HEADER, rows))
    return "\n".join(p for p in parts if p)


def render() -> str:
    """The whole page: global options, then every subcommand in :data:`COMMANDS` order."""
    from citetrain.cli.main import build_parser

    parser = build_parser()
    header = ("# Command line\n\nEvery subcommand of `citetrain` with every option, read from the "
              "command's own parser (`citetrain.cli.main.build_parser`) when the site is built. "
              "`citetrain SUB --help` prints the same. Type is what an argument takes (`flag`: "
              "no value; `choice`: one of its Choices; `list[...]`: repeatable or several values). "
              "Default is the parser's own, else the one its help states where the command fills "
              "it in later (from the suite, recipe or spec, or the model's own).\n")
    top = [_row(parser, a) for a in arguments(parser)]
    summary = table(["Command", "What it does"],
                    [[f"[`{n}`](#citetrain-{n})", cell(plain(h))] for n, (h, _) in subparsers(parser).items()])
    sections = [command_section(n, h, p) for n, (h, p) in subparsers(parser).items()]
    return "\n".join([header, "## Commands\n", summary, "## Global options\n",
                      "Given before the subcommand, e.g. `citetrain --debug eval ...`.\n",
                      table(HEADER, top), *sections])
