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

    A brief command that has answered (its output written, the collector still off) freezes every
    object it made (:func:`gc.freeze`) before the interpreter exits: the exit still runs the
    ``atexit`` hooks, joins the threads, flushes and closes the files and frees each object whose
    count drops to zero, but its last full collection no longer walks the whole heap of a process
    about to end (cycles among these objects are left to the operating system with the rest of
    the memory). That walk was 0.05-0.1 s of a cold ``search`` and 0.15-0.2 s of a cold ``ask``
    (issue 43: ``search nixl`` <= 2x and ``ask speculative`` <= 4x ``import slack_bolt``'s CPU;
    ``benchmarks/cli_cold.py``, figures in docs/benchmarks.md). A long-lived command (the
    collector back on) exits as before.

    OpenBLAS (numpy's, loaded with the search index) starts one thread per core at import, each
    with its own buffers, for matrix products no command makes: one thread saves ~40 ms of a cold
    ``search`` (issue 43: ``search nixl`` <= 2x ``import slack_bolt``; 3.1x -> 2.2x with the
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
    finally:
        if not gc.isenabled():  # a brief command (bot.cli.main.BRIEF), answered or failed: see above
            gc.freeze()
