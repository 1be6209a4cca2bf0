"""Citation judges: one interface, ``judge.score(records) -> JudgeResult``.

* :class:`~citetrain.judges.nli.NLIJudge`: any NLI engine (a fine-tuned cross-encoder, an MNLI
  classifier, TRUE, lexical) through the builders' rules: contexts, edits and EDITDIST ratings;
* :class:`~citetrain.judges.generative.GenerativeJudge`: a causal LM trained on the judge sets,
  prompted with CiteEval's F.3 prompt and read by the ITERCOE parser;
* :class:`~citetrain.judges.teacher.TeacherJudge`: an LLM over an OpenAI-compatible endpoint with
  CiteEval's prompts (context attribution, then editing and rating), cached and resumable.

:func:`~citetrain.judges.registry.make_judge` makes one from a name.
"""
