"""The model card saved with a trained model: recipe, data manifest and results."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from citetrain.io.writers import atomic_write_text
from citetrain.train.recipe_schema import Recipe

SUMMARY = "train_summary.json"  # a finished run's summary, in its output_dir


def write_model_card(folder: str | Path, recipe: Recipe, data_path: Path, summary: dict[str, Any],
                     base: str, extra: str = "") -> Path:
    """``README.md`` with the recipe (YAML) and the data manifest (JSON) embedded, then the
    ``extra`` sections a trainer adds (Markdown)."""
    manifest_path = Path(data_path).parent / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.is_file() else None
    scores = summary.get("in_loop") or []
    text = (f"---\nlibrary_name: {'peft' if recipe.method != 'full' else 'transformers'}\n"
            f"base_model: {base}\ntags: [citetrain, citation, {recipe.kind}]\n---\n\n"
            f"# {recipe.name}\n\nA citation {recipe.kind} trained with citetrain "
            f"({recipe.method}, {summary.get('steps')} steps, final train loss "
            f"{summary.get('train_loss', float('nan')):.4f}).\n\n"
            + (f"Last in-loop citation scores: `{json.dumps(scores[-1])}`\n\n" if scores else "")
            + "## Recipe\n\n```yaml\n" + yaml.safe_dump(recipe.model_dump(mode="json"), sort_keys=False)
            + "```\n\n## Training data manifest\n\n```json\n"
            + (json.dumps(manifest, indent=2) if manifest else "null") + "\n```\n" + extra)
    return atomic_write_text(Path(folder) / "README.md", text)


def publish(final: Path, recipe: Any, data_path: Any, summary: dict[str, Any], base: Any,
            trainer: Any, tokenizer: Any, out: Path, card_extra: str = "") -> None:
    """The end of every run on the main process: model card (with the trainer's ``card_extra``
    sections), ``train_summary.json`` and, when the recipe asks, the push to the hub."""
    from citetrain.train.components import write_json

    write_model_card(final, recipe, data_path, summary, base, card_extra)
    write_json(out / SUMMARY, summary)
    if recipe.hub.push:
        trainer.model.push_to_hub(recipe.hub.repo_id, private=recipe.hub.private)
        tokenizer.push_to_hub(recipe.hub.repo_id, private=recipe.hub.private)
