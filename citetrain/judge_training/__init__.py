"""Training of the cross-encoder citation judges: pairs from labelled sources, students,
teachers and their soft targets, transfer pairs, the trainer and the judge card.

The language models (SFT, DPO, GRPO) train in :mod:`citetrain.train`; this package reuses its
recipe, launcher and session pieces and adds what a judge needs. ``citetrain distill`` chains
its steps into one pipeline.
"""
