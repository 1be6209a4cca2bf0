"""The canonical record and ALCE's passage format."""
from citetrain.records import Doc, Record, format_doc, join_docs


def test_format_doc_like_alce():
    assert format_doc(Doc(title="T", text="body")) == "Title: T\nbody"
    # ALCE's _format_document prefers the QA-extracted "sent" field when a doc has one
    assert format_doc(Doc(title="T", text="body", sent="short")) == "Title: T\nshort"


def test_join_docs_in_citation_order():
    docs = [Doc(title="A", text="a"), Doc(title="B", text="b")]
    assert join_docs(docs, [2, 1]) == "Title: B\nb\nTitle: A\na"


def test_record_keeps_extra_fields_and_drops_unset_gold():
    r = Record(id="1", question="q", docs=[{"title": "t", "text": "x"}], output="o", custom=3)
    d = r.to_dict()
    assert d["custom"] == 3 and "qa_pairs" not in d and d["docs"][0] == {"title": "t", "text": "x"}
