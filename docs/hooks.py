"""MkDocs hook: the reference pages are generated from the code at build time, in memory.

``mkdocs.yml`` lists this file under ``hooks:``; MkDocs puts ``docs/`` on ``sys.path`` while it
loads it, so ``gen_reference`` (``docs/gen_reference/``) imports from here.
"""
from __future__ import annotations

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

import gen_reference


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add every generated page (replacing a file of the same path, which should not exist)."""
    for path, render in gen_reference.pages().items():
        old = files.get_file_from_path(path)
        if old is not None:
            files.remove(old)
        files.append(File.generated(config, path, content=render()))
    return files
