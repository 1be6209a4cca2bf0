"""Scoring outside training: ``citetrain eval`` of a predictions file, or of a checkpoint named
in a suite's ``model:`` (a generator's predictions generated here, resumable and data-parallel;
a refiner's refinement scored before and after; a judge meta-evaluated on labelled data).

Layered between the models (refine / judges) and the command line: :mod:`citetrain.cli.eval_cmd`
and ``python -m citetrain.evaluation`` (for ``accelerate launch``) both run :func:`run.run_eval`.
"""
