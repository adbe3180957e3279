"""Cold start of the CLI: whole processes of ``vllm-path search nixl`` and ``vllm-path ask
speculative`` against ``python -c "import slack_bolt"`` (issue 28's yardstick).

    python benchmarks/cli_cold.py [--runs 7] [--against DIR] [--json] [--check] [--no-bytecode-cache]

Each round runs the three commands once, one after the other (interleaved, so that a change in
the machine's load touches all three alike), each in a fresh interpreter of this venv, in a
temporary working directory with its own SQLite database. One warm-up round is run first and not
counted: it creates the database (``ask``'s first start migrates it), as the second and later
runs of a reader find it. Prints, per command, the median wall time and the median CPU time
(user + system) over ``--runs`` rounds, and the ratios of each to the baseline's (``ratio``: wall,
``cpu_ratio``: CPU); the 1-, 5- and 15-minute load averages before and after. Targets (issue 43,
on CPU, which a loaded machine disturbs less than wall time): ``ask`` <= 4x and ``search`` <= 2x
the baseline. ``--check`` exits 1 when a target is missed. ``--against DIR``
adds both commands run from another checkout's ``bot`` package (``git archive <commit> bot catalog
| tar -x -C DIR``; first on ``PYTHONPATH``, same venv), interleaved in the same rounds; it may be
given more than once, and ``--only-against`` leaves out this checkout's own commands.

Bytecode: every command runs with its compiled modules kept in a folder of the run
(``PYTHONPYCACHEPREFIX``, written by the warm-up round; ``PYTHONDONTWRITEBYTECODE`` unset), as an
installed app runs (pip compiles a package's modules, and a checkout's ``__pycache__`` is written on
its first run) and as the baseline's site-packages already are. ``--no-bytecode-cache`` leaves the
environment as it is: where it sets ``PYTHONDONTWRITEBYTECODE`` (some CI and sandboxes do), the
app's own modules are compiled from source in every run (~0.15-0.25 s more for ``ask``) while
``slack_bolt``'s come compiled from site-packages, which favours the baseline.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
CLI = Path(sys.executable).with_name("vllm-path")

COMMANDS: dict[str, list[str]] = {
    "import slack_bolt": [sys.executable, "-c", "import slack_bolt"],
    "search nixl": [str(CLI), "search", "nixl"],
    "ask speculative": [str(CLI), "ask", "speculative"],
}
TARGETS = {"search nixl": 2.0, "ask speculative": 4.0}
"""Most the median CPU time may be, as a multiple of the baseline's."""


def run_once(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Run ``argv`` to its end; ``(wall seconds, CPU seconds user + system)``. Raises
    ``subprocess.CalledProcessError`` when it fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(
    runs: int, against: list[Path] | None = None, only_against: bool = False, bytecode_cache: bool = True
) -> dict[str, object]:
    """The figures of ``runs`` interleaved rounds (after one warm-up round); with ``against``,
    the two commands from each of those checkouts too (their own database); ``only_against``:
    not from this one; ``bytecode_cache``: compiled modules kept for the run (module docstring)."""
    commands = {name: (argv, None) for name, argv in COMMANDS.items() if not (only_against and name in TARGETS)}
    entry = [sys.executable, "-c", "from bot.cli import run; run()"]
    for other in against or []:
        for name, argv in COMMANDS.items():
            if name in TARGETS:
                commands[f"{name} @{other.name}"] = (entry + argv[1:], str(other.resolve()))
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="cli-cold-") as tmp:
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp}/cli.db", "HOME": tmp}
        env.pop("CATALOG_DIR", None)
        if bytecode_cache:
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["PYTHONPYCACHEPREFIX"] = f"{tmp}/pycache"
        for round_ in range(runs + 1):
            for name, (argv, path) in commands.items():
                own_db = f"sqlite:///{tmp}/{Path(path).name if path else 'cli'}.db"
                run_env = env if path is None else {**env, "PYTHONPATH": path, "DATABASE_URL": own_db}
                figure = run_once(argv, Path(tmp), run_env)
                if round_:
                    samples[name].append(figure)
    load_after = os.getloadavg()
    base = statistics.median(w for w, _ in samples["import slack_bolt"])
    base_cpu = statistics.median(c for _, c in samples["import slack_bolt"])
    rows = {}
    for name, figures in samples.items():
        wall = statistics.median(w for w, _ in figures)
        cpu = statistics.median(c for _, c in figures)
        rows[name] = {
            "wall_s": round(wall, 3),
            "cpu_s": round(cpu, 3),
            "ratio": round(wall / base, 2),
            "cpu_ratio": round(cpu / base_cpu, 2),
            "target": TARGETS.get(name),
            "walls_s": [round(w, 3) for w, _ in figures],
        }
    return {
        "runs": runs,
        "bytecode_cache": bytecode_cache,
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in load_after],
        "commands": rows,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="counted rounds (default 7)")
    parser.add_argument("--against", type=Path, action="append", help="another checkout to run as well (repeatable)")
    parser.add_argument(
        "--only-against", action="store_true", help="run the commands from the --against checkouts only"
    )
    parser.add_argument(
        "--no-bytecode-cache", action="store_true", help="leave PYTHONDONTWRITEBYTECODE and the bytecode as they are"
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    args = parser.parse_args()
    result = measure(args.runs, args.against, args.only_against, not args.no_bytecode_cache)
    rows = result["commands"]
    assert isinstance(rows, dict)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(
            f"load before {result['load_before']}, after {result['load_after']}; "
            f"median of {args.runs} interleaved cold runs; bytecode "
            + ("kept for the run" if result["bytecode_cache"] else "as the environment has it")
        )
        print(f"{'command':<30} {'wall':>7} {'cpu':>7} {'wall x':>6} {'cpu x':>6} {'target':>7}")
        for name, row in rows.items():
            target = f"<= {row['target']}x" if row["target"] else ""
            print(
                f"{name:<30} {row['wall_s']:>6.2f}s {row['cpu_s']:>6.2f}s {row['ratio']:>5.2f}x"
                f" {row['cpu_ratio']:>5.2f}x {target:>7}"
            )
    missed = [n for n, r in rows.items() if r["target"] and r["cpu_ratio"] > r["target"]]
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    sys.exit(main())
