"""The command-line reference, read from citetrain's own argparse parsers."""
from __future__ import annotations

import argparse

from .markdown import cell, code, plain, table, value


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


def _default(action: argparse.Action) -> str:
    d = action.default
    if d is None or d is argparse.SUPPRESS or action.nargs == 0 or d == []:
        return ""
    return code(value(d) if not isinstance(d, str) else d)


def _row(parser: argparse.ArgumentParser, action: argparse.Action) -> list[str]:
    notes = []
    if action.required and action.option_strings:
        notes.append("required")
    if isinstance(action, argparse._AppendAction):
        notes.append("repeatable")
    choices = ", ".join(code(c) for c in action.choices) if action.choices else ""
    return [code(argument_name(action)), cell(plain(_help(parser, action))), _default(action), choices,
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
        parts.append(table(["Argument", "Help", "Default", "Choices", "Notes"], rows))
    return "\n".join(p for p in parts if p)


def render() -> str:
    """The whole page: global options, then every subcommand in :data:`COMMANDS` order."""
    from citetrain.cli.main import build_parser

    parser = build_parser()
    header = ("# Command line\n\nEvery subcommand of `citetrain` with every option, read from the "
              "command's own parser (`citetrain.cli.main.build_parser`) when the site is built. "
              "`citetrain SUB --help` prints the same.\n")
    top = [_row(parser, a) for a in arguments(parser)]
    summary = table(["Command", "What it does"],
                    [[f"[`{n}`](#citetrain-{n})", cell(plain(h))] for n, (h, _) in subparsers(parser).items()])
    sections = [command_section(n, h, p) for n, (h, p) in subparsers(parser).items()]
    return "\n".join([header, "## Commands\n", summary, "## Global options\n",
                      "Given before the subcommand, e.g. `citetrain --debug eval ...`.\n",
                      table(["Argument", "Help", "Default", "Choices", "Notes"], top), *sections])
