"""Small Markdown helpers shared by the reference generators: table cells and docstrings."""
from __future__ import annotations

import json
import re
from typing import Any, Iterable, Sequence

_ROLE = re.compile(r":[a-z]+:`(~?)([^`]+)`")
_SECTION = re.compile(r"^(\s*)([A-Z][A-Za-z ]+)\n\1-{3,}$", re.M)
_PARAM = re.compile(r"^([A-Za-z_][\w, ]*) : (.*)$")


def cell(text: Any) -> str:
    """``text`` on one line, safe inside a Markdown table cell."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _outside_code(text: str, fix) -> str:
    """``fix`` applied to the parts of ``text`` outside its inline code spans."""
    parts = re.split(r"(`+[^`]*`+)", text)
    return "".join(p if p.startswith("`") else fix(p) for p in parts)


def _no_html(text: str) -> str:
    return text.replace("<", "&lt;").replace(">", "&gt;")


def plain(text: Any) -> str:
    """Plain text (a command's help) safe as Markdown: no HTML, no emphasis; code spans kept."""
    return _outside_code(str(text), lambda t: _no_html(t).replace("*", "\\*"))


def code(text: Any) -> str:
    """``text`` as one inline code span (backticks inside it doubled around)."""
    text = str(text)
    return f"`` {text} ``" if "`" in text else f"`{text}`"


def value(v: Any) -> str:
    """A default value as YAML / JSON writes it (``null``, ``true``, ``"auto"``, ``[...]``)."""
    try:
        return json.dumps(v, ensure_ascii=False)
    except TypeError:
        return str(v)


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A Markdown table; every cell already made safe with :func:`cell`."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def rst(text: str) -> str:
    """A docstring (reST roles, double backticks, numpy sections) as Markdown."""
    text = _ROLE.sub(lambda m: code(m.group(2).rsplit(".", 1)[-1] if m.group(1) else m.group(2)), text)
    text = re.sub(r"``(.+?)``", lambda m: code(m.group(1)), text, flags=re.S)
    text = _SECTION.sub(lambda m: f"{m.group(1)}**{m.group(2)}**\n", text)
    text = _outside_code(text, _no_html)
    return "\n".join(_param_item(line) for line in text.splitlines())


def _param_item(line: str) -> str:
    """``name : text`` (a numpy parameter line) as a list item; its indented lines follow it."""
    m = _PARAM.match(line)
    if not m:
        return line
    names = ", ".join(code(n.strip()) for n in m.group(1).split(","))
    return f"- {names}: {m.group(2)}"
