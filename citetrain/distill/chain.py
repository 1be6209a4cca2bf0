"""Running a chain of steps so that a killed chain, started again, goes on where it stopped.

Each :class:`Step` has an identity: its settings and the identities of the steps it reads.
``OUT/done/NAME.json`` records it when the step starts and again when it ends well; a step done
with the same identity (its outputs there) is *kept*, one started or done with other settings is
run again from scratch (what it wrote removed first, where it is its own), and a step a killed
chain left half done is run again, which goes on from what it had saved (a training run from its
last checkpoint, a teacher file from its finished chunks). Training steps of one ``group`` run as
parallel processes (:mod:`citetrain.distill.runs`); the others run in this process.
"""
from __future__ import annotations

import hashlib
import json
import shlex
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from citetrain.distill.runs import TrainRun, describe, run_all
from citetrain.io.writers import atomic_write_text

DONE = "done"  # OUT/done/NAME.json: a finished step's record


@dataclass
class Step:
    """One link of the chain. ``argv``: the command line it runs, where it is one (a training
    run, or a ``citetrain`` command); ``command``: that line as ``--dry-run`` prints it
    (``shlex.join(argv)``), or what the step does in words; ``outputs``: what it writes;
    ``after``: the steps it reads. A training step has ``train`` (its ``--set`` items; the
    recipe is the chain's) and runs ``argv`` as a process; any other step has ``call``, which does
    the work (running ``argv`` through the ``citetrain`` entry point where it has one) and may
    return a line to report. ``clean``: what the step writes
    (outputs, partial files, a run folder), removed when its settings change (default: its
    outputs); ``owned`` false: nothing is removed (shared data such as the built pairs)."""

    name: str
    what: str
    command: str
    outputs: list[Path]
    settings: dict[str, Any]
    after: list[str] = field(default_factory=list)
    call: Callable[[], str | None] | None = None
    train: list[str] | None = None
    before: Callable[[], None] | None = None
    clean: list[Path] | None = None
    owned: bool = True
    group: str | None = None
    argv: list[str] | None = None

    def __post_init__(self) -> None:
        if self.argv is not None:
            self.command = shlex.join(self.argv)


def _hash(data: Any) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()[:16]


class Chain:
    """The steps of one chain under ``out``; ``say`` prints a progress line."""

    def __init__(self, steps: list[Step], out: Path, recipe: str,
                 say: Callable[[str], None]) -> None:
        self.steps, self.out, self.recipe, self.say = steps, out, recipe, say
        self.by_name = {s.name: s for s in steps}
        self._ids: dict[str, str] = {}

    def identity(self, step: Step) -> str:
        """The hash of the step's settings and of the identities of the steps it reads."""
        if step.name not in self._ids:
            ups = {n: self.identity(self.by_name[n]) for n in step.after if n in self.by_name}
            self._ids[step.name] = _hash({"settings": step.settings, "after": ups})
        return self._ids[step.name]

    def record(self, step: Step) -> Path:
        return self.out / DONE / f"{step.name}.json"

    def state(self, step: Step) -> str:
        """``kept`` (done with these settings, outputs there), ``changed`` (started or done with
        other settings) or ``todo``."""
        path = self.record(step)
        if not path.is_file():
            return "todo"
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            return "todo"
        if old.get("identity") != self.identity(step):
            return "changed"
        done = old.get("state") == "done" and all(p.exists() for p in step.outputs)
        return "kept" if done else "todo"

    def mark(self, step: Step, state: str, seconds: float | None = None) -> None:
        """Record the step as ``started`` or ``done`` with its identity."""
        atomic_write_text(self.record(step), json.dumps({
            "step": step.name, "state": state, "identity": self.identity(step),
            "settings": step.settings, "seconds": None if seconds is None else round(seconds, 1),
            "at": time.strftime("%Y-%m-%dT%H:%M:%S")}, indent=2, default=str) + "\n")

    def finish(self, step: Step, seconds: float) -> None:
        self.mark(step, "done", seconds)

    def forget(self, step: Step) -> None:
        """A step whose settings changed: its record and what it wrote go."""
        self.record(step).unlink(missing_ok=True)
        if not step.owned:
            return
        for path in step.clean if step.clean is not None else step.outputs:
            if path.is_dir():
                shutil.rmtree(path)
            elif path.exists():
                path.unlink()

    def run(self, envs: Callable[[int], list[dict[str, str]]]) -> dict[str, str]:
        """Run every step not kept, in order (a group of training steps together, in ``envs(n)``
        slots); returns ``{step: kept | run}``."""
        said: dict[str, str] = {}
        k = 0
        while k < len(self.steps):
            step = self.steps[k]
            group = [step]
            while (step.group is not None and k + len(group) < len(self.steps)
                   and self.steps[k + len(group)].group == step.group):
                group.append(self.steps[k + len(group)])
            k += len(group)
            todo = []
            for s in group:
                state = self.state(s)
                if state == "kept":
                    self.say(f"{s.name}: kept ({s.what})")
                    said[s.name] = "kept"
                    continue
                if state == "changed":
                    self.say(f"{s.name}: its settings changed since an earlier call; run "
                             "again from scratch")
                    self.forget(s)
                todo.append(s)
                said[s.name] = "run"
            if todo:
                self._run_group(todo, envs)
        return said

    def _run_group(self, todo: list[Step], envs: Callable[[int], list[dict[str, str]]]) -> None:
        calls = [s for s in todo if s.train is None]
        for s in calls:
            self.say(f"{s.name}: {s.what}")
            self.mark(s, "started")
            t0 = time.time()
            line = s.call() if s.call is not None else None
            if line:
                self.say(f"{s.name}: {line}")
            self.finish(s, time.time() - t0)
            self.say(f"{s.name}: done in {time.time() - t0:.0f} s")
        runs = [s for s in todo if s.train is not None]
        if not runs:
            return
        slots = envs(len(runs))
        if len(runs) > 1:
            self.say(f"{len(runs)} training runs, {describe(slots)}")
        train = [TrainRun(s.name, self.recipe, s.train, self.out / "logs" / f"{s.name}.log",
                          before=lambda s=s: self._start(s),
                          after=lambda took, s=s: self.finish(s, took)) for s in runs]
        run_all(train, slots, self.say)

    def _start(self, step: Step) -> None:
        self.mark(step, "started")
        if step.before is not None:
            step.before()
