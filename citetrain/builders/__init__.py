"""Data builders: gold citation targets under NLI, edit and context labels, training sets."""
