"""CiteEval-Auto prompts (F.2 / F.3) and the parsing of their outputs."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from citetrain.analysis.editdist import Action
from citetrain.metrics.itercoe import (
    CITEEVAL_TEMPLATE,
    CONTEXT_TEMPLATE,
    parse_context_labels,
    parse_itercoe,
    render_citations,
    render_citeeval_prompt,
    render_context_prompt,
)
from citetrain.records import Doc, Record
from citetrain.text.marks import parse_marks

PAPER_EXAMPLE = """<thinking> This claim is directly supported by passage 1. However, passage 6 does not
provide any direct evidence ... I will rate the given citations 2 (Poor). </thinking>
<editing sentence_id="1">
<DELETE citation="6"> DELETE REASON 1 </DELETE>
<ADD citation="7"> ADD REASON 3 </ADD>
</editing>
<rating sentence_id="1"> 2 </rating>"""


def test_paper_example_parses():
    (j,) = parse_itercoe(PAPER_EXAMPLE, 1)
    assert j.status == "ok" and j.reason == ""
    assert j.edits == ((Action.DELETE_MISLEADING, 6), (Action.ADD_CREDIBILITY, 7))
    assert j.rating == 2 and j.normalised == 0.25  # (2 - 1) / 4


def test_na_stray_text_and_variants():
    text = """Sure! Here is my evaluation.
<thinking>fine</thinking>
<editing sentence_id="1"> N/A </editing>
<rating sentence_id="1"> 5 (Excellent) </rating>
some chatter
<editing sentence_id='2'><DELETE citation=3>Redundant<DELETE>
<ADD citation="4">REASON 2</ADD></editing>
<rating sentence_id="2">4</rating>"""
    j1, j2 = parse_itercoe(text, 2)
    assert (j1.status, j1.edits, j1.rating, j1.normalised) == ("ok", (), 5, 1.0)
    # unclosed <DELETE> as F.3 itself writes it, reason by name, "REASON 2" under ADD
    assert j2.edits == ((Action.DELETE_REDUNDANT, 3), (Action.ADD_REFINEMENT, 4))
    assert (j2.rating, j2.normalised) == (4, 0.75)


def test_unparsed_reasons():
    text = """<editing sentence_id="1"> N/A </editing>
<editing sentence_id="2"> N/A </editing><rating sentence_id="2"> 7 </rating>
<editing sentence_id="3"><DELETE citation="1"> DELETE REASON 4 </DELETE></editing>
<rating sentence_id="3"> 3 </rating>
<editing sentence_id="4"><DELETE citation="1"> ADD REASON 1 </DELETE></editing>
<rating sentence_id="4"> 3 </rating>
<rating sentence_id="5"> 3 </rating>
<editing sentence_id="6"> the citations look fine </editing><rating sentence_id="6">5</rating>"""
    js = parse_itercoe(text, 6)
    assert [j.status for j in js] == ["unparsed"] * 6
    assert js[0].reason == "missing rating"
    assert js[1].reason == "rating out of range: 7"
    assert js[2].reason.startswith("unknown reason") and js[3].reason.startswith("unknown reason")
    assert js[4].reason == "no editing block"
    assert js[5].reason == "unreadable editing block"
    assert all(j.rating is None and j.normalised is None for j in js)


def test_last_block_wins():
    text = ('<editing sentence_id="1"> N/A </editing><rating sentence_id="1"> 5 </rating>'
            '<editing sentence_id="1"><ADD citation="2"> ADD REASON 1 </ADD></editing>'
            '<rating sentence_id="1"> 3 </rating>')
    (j,) = parse_itercoe(text, 1)
    assert j.edits == ((Action.ADD_EVIDENCE, 2),) and j.rating == 3


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list('<>/="editing rating sentence_id DELETE ADD 0123'
                                             'citation REASON N/A\n'))), st.integers(0, 4))
def test_never_raises_on_model_output(text, n):
    assert len(parse_itercoe(text, n)) == n
    assert len(parse_context_labels(text, n)) == n


def test_context_labels():
    text = """<thinking>...</thinking><category sentence_id="1"> 2 </category>
<category sentence_id="2">Choose: Query</category>
<category sentence_id="3"> 9 </category>
<category sentence_id="5"> 4 </category>"""
    c = parse_context_labels(text, 5)
    assert [(x.label, x.status) for x in c] == [
        (2, "ok"), (1, "ok"), (None, "unparsed"), (None, "unparsed"), (4, "ok")]
    assert c[0].name == "retrieval" and c[4].name == "model"
    assert c[2].reason == "category out of range: 9" and c[3].reason == "no category block"


def test_templates_are_the_papers():
    assert CONTEXT_TEMPLATE.startswith("You are an expert specializing in analyzing sentences")
    assert "2. Retrieval: Sentences fully or partially supported by the retrieval context." \
        in CONTEXT_TEMPLATE
    assert "DELETE REASON 1. Misleading: the citation is irrelevant" in CITEEVAL_TEMPLATE
    assert '<ADD citation="7"> ADD REASON 3 </ADD>' in CITEEVAL_TEMPLATE
    assert CONTEXT_TEMPLATE.endswith("Begin!") and CITEEVAL_TEMPLATE.endswith("Begin!")


def test_render_prompts():
    rec = Record(id="r", question="Why is time dilated?",
                 docs=[Doc(title="Light", text="Light speed is constant."), Doc(text="Other.")])
    sts = [parse_marks("Light speed is constant [1][2]."), parse_marks("It is fun.")]
    # the citation line of the paper's F.3 example, and an empty one for an uncited sentence
    assert render_citations(sts).splitlines() == [
        '<citation sentence_id="1", sentence="Light speed is constant."> 1, 2 </citation>',
        '<citation sentence_id="2", sentence="It is fun."> </citation>',
    ]
    ce = render_citeeval_prompt(rec, sts)
    ca = render_context_prompt(rec, sts)
    for prompt in (ce, ca):
        assert "[[" not in prompt and "Why is time dilated?" in prompt
        assert '<passage id="1">\nTitle: Light\nLight speed is constant.\n</passage>' in prompt
        assert '<passage id="2">\nOther.\n</passage>' in prompt
        assert '<sentence sentence_id="2"> It is fun. </sentence>' in prompt
    assert "{{citation}}" in ce  # the template's own braces survive rendering
