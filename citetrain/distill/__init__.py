"""``citetrain distill SPEC``: a cheap judge distilled end to end from one spec
(``distill/*.yaml``).

The chain: the built pairs (:mod:`citetrain.builders`), the teachers (fold teachers trained here
as parallel processes, or an NLI / LLM engine) and their teacher file
(:mod:`citetrain.judge_training.teacher_scores`, :mod:`citetrain.judge_training.transfer`,
:mod:`citetrain.judge_training.teachers`), the student, and, as the spec asks, prune
(:mod:`citetrain.judges.narrow`), teach-back (:mod:`citetrain.judge_training.teachers`) and export
(:mod:`citetrain.judges.export`). :mod:`~citetrain.distill.spec` is the schema,
:mod:`~citetrain.distill.plan` and :mod:`~citetrain.distill.student` make the steps,
:mod:`~citetrain.distill.chain` runs them resumably, :mod:`~citetrain.distill.runs` starts the
training processes, :mod:`~citetrain.distill.pipeline` ties them together.
"""
