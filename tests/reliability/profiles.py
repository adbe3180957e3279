"""Hypothesis settings for the reliability properties, and a count of the examples run.

Two profiles: ``ci`` (the default; a few hundred examples per property) and ``fuzz`` (10,000
examples for the input properties), chosen by ``pytest --fuzz`` or ``HYPOTHESIS_PROFILE=fuzz``
(see ``tests/reliability/conftest.py``). ``benchmarks/fuzz.py`` runs the fuzz profile and reports
:data:`COUNTS` (examples actually run per property), which the conftest also prints and writes to
``$FUZZ_REPORT`` when set.
"""

from __future__ import annotations

import os
from collections import Counter

from hypothesis import HealthCheck, settings

ACTIVE = {"profile": os.environ.get("HYPOTHESIS_PROFILE", "ci")}
COUNTS: Counter[str] = Counter()

_COMMON = {
    "deadline": None,
    "print_blob": True,
    "database": None,
    "suppress_health_check": [
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
        HealthCheck.filter_too_much,
    ],
}


def fuzz_settings(ci: int = 250, fuzz: int = 10_000) -> settings:
    """Settings for one property: ``ci`` examples normally, ``fuzz`` under the fuzz profile."""
    n = fuzz if ACTIVE["profile"] == "fuzz" else ci
    return settings(max_examples=n, **_COMMON)


def count(name: str) -> None:
    """Record that one example of property ``name`` ran."""
    COUNTS[name] += 1
