"""Run the quickstart's stages in order and write the report."""
from __future__ import annotations

import time
from typing import Any

from citetrain.quickstart import report as R
from citetrain.quickstart import stages as S
from citetrain.quickstart.baseline import shared_word_baseline
from citetrain.quickstart.plan import Plan

STAGES = (
    "build: synthetic records -> refiner data labelled with the lexical NLI",
    "held-out: validation and test records from two other synthetic worlds",
    "train: LoRA pair refiner (recipes/quickstart.yaml) with in-loop citation scores",
    "refine: the test answers' citations replaced by the refiner's",
    "score: ALCE, lenient, ALiiCE before / trivial baseline / after",
    "report: report.json, report.png",
)


def build_summary(manifest: dict[str, Any]) -> dict[str, Any]:
    """What the report keeps of the build's manifest: records, examples per split, the NLI
    engine, and the statement counts (support found, edit actions, NLI calls vs exhaustive)."""
    return {"records": manifest.get("records", {}), "examples": manifest.get("examples", {}),
            "nli": manifest.get("nli", {}).get("engine"),
            "statements": manifest.get("statements", {})}


def run_quickstart(plan: Plan, progress: bool = True, log: S.Log = print) -> dict[str, Any]:
    """All stages; returns the report (also written to ``OUT/report.json``)."""
    from citetrain.io.console import no_progress_bars, quiet_libraries, show_progress

    start = time.time()
    seconds: dict[str, float] = {}
    plan.out.mkdir(parents=True, exist_ok=True)
    logged = quiet_libraries(plan.out / "quickstart.log")
    if logged is not None:
        log(f"[quickstart] the libraries' messages go to {logged} (--verbose shows them here)")
    no_progress_bars()  # the terminal: one line per stage and per logged training step
    progress = show_progress(progress)
    with S.timed("build", seconds, log):
        manifest = S.build_data(plan, progress, log)
    with S.timed("held-out", seconds, log):
        validation, test = S.heldout(plan)
    with S.timed("train", seconds, log):
        training = S.train(plan, validation, log)
    with S.timed("refine", seconds, log):
        refined, counts = S.refine(plan, test, progress)
    with S.timed("score", seconds, log):
        scores = S.score({"unrefined": test, "trivial": shared_word_baseline(test),
                          "refined": refined})
    f1 = S.f1_table(scores)
    report = {"plan": plan.to_dict(), "f1": f1, "scores": scores, "refine_counts": counts,
              "training": training, "build": build_summary(manifest),
              "seconds": seconds, "note": R.toy_note(training)}
    report["seconds"]["total"] = round(time.time() - start, 1)
    R.write_json(report, plan.out / "report.json")
    R.write_png(report, plan.out / "report.png")
    log("\n" + R.table(f1))
    log(f"\n[quickstart] note: {report['note']}")
    log(f"\n[quickstart] {counts['text_unchanged']}/{len(test)} answers' text unchanged outside "
        f"the marks; wrote {plan.out / 'report.json'} and {plan.out / 'report.png'} "
        f"({report['seconds']['total']:.0f} s in all)")
    return report
