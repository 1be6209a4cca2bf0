"""Citation rewards for preference and RL training (:mod:`citetrain.rewards.citation`)."""
from citetrain.rewards.citation import CitationRewards

__all__ = ["CitationRewards"]
