"""The ``vllm-path`` command line: the entry point (:func:`run`, then :mod:`bot.cli.main`) and its command groups."""

import gc


def run() -> None:
    """The ``vllm-path`` script: :func:`bot.cli.main.main` with the cyclic GC off while it starts up.

    A cold start allocates a few hundred thousand objects (SQLAlchemy, pydantic, Bolt) and frees
    none, so the collector's passes over them are wasted: about 45 ms of ``vllm-path ask``'s 0.5 s.
    The group turns it back on for every command but the brief read-only ones
    (:data:`bot.cli.main.BRIEF`), which exit once they have answered. A speed layer
    ``benchmarks/cli_cold.py`` needs: with the collector on, ``ask speculative`` took 5.15-5.28x
    ``import slack_bolt`` (target <= 5x; docs/benchmarks.md, "Speed layers ...").
    """
    gc.disable()
    from bot.cli.main import main

    main()
