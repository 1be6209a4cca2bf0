"""``citetrain quickstart``: the main job end to end on the project's own synthetic data.

Stages (each prints what it does, with a progress bar): synthetic records → refiner data built
with the lexical NLI (``citetrain build``) → a LoRA pair refiner trained from
``recipes/quickstart.yaml`` with in-loop citation scores → held-out answers refined → ALCE,
lenient and ALiiCE before / after / a trivial baseline → ``report.json`` and ``report.png``.
"""
from citetrain.quickstart.plan import Plan, make_plan  # noqa: F401
