"""The ``vllm-path`` command line: the entry point (:func:`run`, then :mod:`bot.cli.main`) and its command groups."""

import gc
import os
import sys


def run() -> None:
    """The ``vllm-path`` script: :func:`bot.cli.main.main` with the cyclic GC off while it starts up.

    A cold start allocates a few hundred thousand objects (SQLAlchemy, pydantic, Bolt) and frees
    none, so the collector's passes over them are wasted: about 45 ms of ``vllm-path ask``'s 0.5 s.
    The group turns it back on for every command but the brief read-only ones
    (:data:`bot.cli.main.BRIEF`), which exit once they have answered. A speed layer
    ``benchmarks/cli_cold.py`` needs: with the collector on, ``ask speculative`` took 5.15-5.28x
    ``import slack_bolt`` (target <= 5x; docs/benchmarks.md, "Speed layers ...").

    OpenBLAS (numpy's, loaded with the search index) starts one thread per core at import, each
    with its own buffers, for matrix products no command makes: one thread saves ~40 ms of a cold
    ``search`` (issue 43: ``search nixl`` <= 2x ``import slack_bolt``'s CPU; 3.1x -> 2.2x with the
    catalog kept with the index) and a few MB of a server's memory.
    """
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    gc.disable()
    from bot.cli.main import main

    try:
        main()
    except ValueError as exc:  # a malformed vocabulary or answers file: one line per problem (QA)
        from bot.domain.search.vocabulary import VocabularyError

        if not isinstance(exc, VocabularyError):
            raise
        import click

        for problem in exc.errors:
            click.echo(f"error: {problem}", err=True)
        click.echo("`vllm-path catalog check` lists the catalog's problems.", err=True)
        sys.exit(1)
