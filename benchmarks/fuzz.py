"""The fuzz profile: the reliability properties with 10,000 examples each, and the count that ran.

Runs ``pytest tests/reliability/test_fuzz_input.py tests/reliability/test_fuzz_catalog.py --fuzz``
(Hypothesis profile ``fuzz``: 10,000 examples for slash command text and for button values;
fewer for the slower whole-Bolt-app and hostile-catalog properties, see
``tests/reliability/profiles.py``) on SQLite, or on PostgreSQL too with ``--postgres``, and
reports how many examples of each property ran and whether all held.

Run: ``python benchmarks/fuzz.py [--fuzz] [--postgres] [--json]`` (``--fuzz`` is the default and is
accepted for symmetry with ``pytest --fuzz``). Exit status: pytest's (0 = every property held).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FILES = ["tests/reliability/test_fuzz_input.py", "tests/reliability/test_fuzz_catalog.py"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fuzz", action="store_true", default=True, help="10,000 examples (default)")
    parser.add_argument("--ci", action="store_true", help="the CI profile instead (a few hundred)")
    parser.add_argument("--postgres", action="store_true", help="also run on PostgreSQL")
    parser.add_argument("--json", action="store_true", help="print JSON")
    args = parser.parse_args()
    profile = "ci" if args.ci else "fuzz"
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "fuzz.json"
        env = dict(
            os.environ, HYPOTHESIS_PROFILE=profile, FUZZ_REPORT=str(report), HYPOTHESIS_EXPLORE="1"
        )  # new examples each run (the suite itself is derandomized)
        cmd = [sys.executable, "-m", "pytest", *FILES, "-q", "-p", "no:cacheprovider", "--timeout=0"]
        if not args.postgres:
            cmd += ["-k", "sqlite or not postgres"]
        started = time.monotonic()
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
        elapsed = time.monotonic() - started
        counts = json.loads(report.read_text())["counts"] if report.exists() else {}
    result = {
        "profile": profile,
        "passed": proc.returncode == 0,
        "elapsed_s": round(elapsed, 1),
        "examples": counts,
        "total": sum(counts.values()),
    }
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"profile {profile}: {'all properties held' if result['passed'] else 'FAILED'} in {elapsed:.0f} s")
        for name, n in sorted(counts.items()):
            print(f"{n:>8,}  {name}")
        print(f"{result['total']:>8,}  examples in total")
    if proc.returncode != 0:
        print(proc.stdout[-6000:], file=sys.stderr)
        print(proc.stderr[-2000:], file=sys.stderr)
    return proc.returncode


if __name__ == "__main__":
    raise SystemExit(main())
