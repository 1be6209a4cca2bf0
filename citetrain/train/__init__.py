"""Training: recipes, the SFT run with LoRA / QLoRA / full fine-tuning, in-loop citation scoring."""
