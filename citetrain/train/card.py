"""The model card saved with a trained model: recipe, data manifest and results."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from citetrain.io.writers import atomic_write_text
from citetrain.train.recipe_schema import Recipe


def write_model_card(folder: str | Path, recipe: Recipe, data_path: Path, summary: dict[str, Any],
                     base: str) -> Path:
    """``README.md`` with the recipe (YAML) and the data manifest (JSON) embedded."""
    manifest_path = Path(data_path).parent / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.is_file() else None
    scores = summary.get("in_loop") or []
    extra = ""
    if summary.get("heldout"):
        from citetrain.train.judge_card import card_section

        extra += "\n" + card_section(summary["heldout"])
    if summary.get("built"):
        extra += ("\n## Built training pairs (`crossencoder.built`)\n\n```json\n"
                  + json.dumps(summary["built"], indent=2) + "\n```\n")
    if summary.get("teacher"):
        t = summary["teacher"]
        extra += (f"\n## Distilled (`distill.teacher`)\n\n{t['pairs']} training pairs read "
                  f"{t['weight']:g}·teacher + {1 - t['weight']:g}·label from `{t['file']}` "
                  f"(sha256 {t.get('sha256', '?')})"
                  + (f"; {t['transfer_pairs']} of them transfer pairs, read with the file's own "
                     "weight" if t.get("transfer_pairs") else "") + ".\n")
    if summary.get("not_full"):
        n = summary["not_full"]
        extra += (f"\n## Coarse labels (`crossencoder.not_full`)\n\n{n['labels']} training labels 0 of "
                  f"{', '.join(n['sources'])} trained as \"not fully supported\" (level 0 or 1).\n")
    if summary.get("fold"):
        f = summary["fold"]
        extra += (f"\n## A teacher (`distill.folds`)\n\nFold {f['fold']} of {f['folds']} of the "
                  f"training claims left out of training; its {f['pairs']} pairs scored in "
                  "`fold_scores.jsonl`.\n")
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
            trainer: Any, tokenizer: Any, out: Path) -> None:
    """The end of every run on the main process: model card, ``train_summary.json`` and, when the
    recipe asks, the push to the hub."""
    from citetrain.train.setup import write_json

    write_model_card(final, recipe, data_path, summary, base)
    write_json(out / "train_summary.json", summary)
    if recipe.hub.push:
        trainer.model.push_to_hub(recipe.hub.repo_id, private=recipe.hub.private)
        tokenizer.push_to_hub(recipe.hub.repo_id, private=recipe.hub.private)
