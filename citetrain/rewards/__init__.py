"""Citation rewards for preference and RL training: the NLI rewards of
:mod:`citetrain.rewards.citation` and SelfCite's context-ablation reward of
:mod:`citetrain.rewards.selfcite`."""
from citetrain.rewards.citation import CitationRewards
from citetrain.rewards.selfcite import SelfCiteReward

__all__ = ["CitationRewards", "SelfCiteReward"]
