"""The Python API reference (``docs/reference/api/``) against the package's declared API.

- Every module the reference lists (its index page's table, :data:`MODULES` here) declares
  ``__all__``, and every name in it exists and has a docstring of its own.
- The pages' ``::: module`` directives (mkdocstrings) name exactly the public names each module
  defines: no declared name is left out, no page documents an undeclared name. A name a module
  re-exports (``citetrain.Record``, ``citetrain.rewards.CitationRewards``) is documented once,
  under the listed module that defines it.
"""
from __future__ import annotations

import importlib
import inspect
import re
import textwrap
from pathlib import Path

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
API = REPO / "docs" / "reference" / "api"
INDEX = API / "index.md"

MODULES = (
    "citetrain", "citetrain.records", "citetrain.io.readers", "citetrain.text.marks",
    "citetrain.text.prompts", "citetrain.metrics.evaluate", "citetrain.metrics.report",
    "citetrain.config", "citetrain.nli.registry", "citetrain.rewards",
    "citetrain.rewards.citation", "citetrain.rewards.selfcite", "citetrain.train.callbacks",
)
"""The public modules: those whose names the guides and README import or call."""

_DIRECTIVE = re.compile(r"^::: *(\S+)\n((?:[ \t]+\S.*\n|[ \t]*\n)*)", re.M)


def declared(module: str) -> list[str]:
    """``module.__all__`` without dunders (``__version__`` is data, not API to render)."""
    names = importlib.import_module(module).__all__
    return [n for n in names if not (n.startswith("__") and n.endswith("__"))]


def home(module: str, name: str) -> str:
    """The module that defines ``module.name`` (``evaluate`` is loaded lazily by ``citetrain``)."""
    obj = getattr(importlib.import_module(module), name)
    return getattr(obj, "__module__", module)


def directives() -> list[tuple[str, str, list[str]]]:
    """``(page, module, members)`` of every ``::: module`` on the API pages."""
    out = []
    for page in sorted(API.glob("*.md")):
        for m in _DIRECTIVE.finditer(page.read_text(encoding="utf-8") + "\n"):
            options = yaml.safe_load(textwrap.dedent(m.group(2))) if m.group(2).strip() else None
            members = ((options or {}).get("options") or {}).get("members")
            assert isinstance(members, list), (
                f"{page.name}: ::: {m.group(1)} must list its `members:` (the module's __all__)")
            out.append((page.name, m.group(1), members))
    return out


def documented() -> dict[str, list[str]]:
    """Module -> the names its directives render (a module may appear once only)."""
    seen: dict[str, list[str]] = {}
    for page, module, members in directives():
        assert module not in seen, f"{page}: ::: {module} appears twice"
        seen[module] = members
    return seen


@pytest.mark.parametrize("module", MODULES)
def test_each_public_module_declares_its_names_with_docstrings(module):
    mod = importlib.import_module(module)
    assert isinstance(getattr(mod, "__all__", None), (list, tuple)), f"{module} has no __all__"
    assert (mod.__doc__ or "").strip(), f"{module} has no module docstring"
    for name in declared(module):
        obj = getattr(mod, name)  # AttributeError: declared but missing
        assert (getattr(obj, "__doc__", None) or "").strip(), f"{module}.{name} has no docstring"
        if inspect.isclass(obj):
            assert "__doc__" in vars(obj), f"{module}.{name}: its docstring is inherited"


def test_the_index_page_lists_every_public_module_and_no_other():
    text = INDEX.read_text(encoding="utf-8")
    listed = re.findall(r"^\| `(citetrain[\w.]*)` \|", text, flags=re.M)
    assert sorted(listed) == sorted(MODULES)
    for module in MODULES:
        row = re.search(rf"^\| `{re.escape(module)}` \| (.*?) \|", text, flags=re.M).group(1)
        assert set(re.findall(r"`(\w+)`", row)) == set(declared(module)), module


def test_every_declared_name_is_on_a_page():
    pages = documented()
    missing = []
    for module in MODULES:
        for name in declared(module):
            where = home(module, name)
            if where not in MODULES or name not in pages.get(where, []):
                missing.append(f"{module}.{name} (defined in {where})")
    assert not missing, "not in docs/reference/api/: " + ", ".join(missing)


def test_the_pages_document_only_declared_names():
    for module, members in documented().items():
        assert module in MODULES, f"::: {module} is not a listed public module"
        names = declared(module)
        extra = [n for n in members if n not in names]
        assert not extra, f"::: {module} documents undeclared {extra}"
        assert len(set(members)) == len(members), f"::: {module} lists a name twice"
        defined_here = [n for n in names if home(module, n) == module]
        assert sorted(members) == sorted(defined_here), f"::: {module}"


def test_the_nav_lists_every_api_page():
    nav = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    assert "- Python API:" in nav
    for page in sorted(API.glob("*.md")):
        assert f"reference/api/{page.name}" in nav, page.name
