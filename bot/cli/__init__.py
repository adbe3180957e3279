"""The ``vllm-path`` command line: the entry point (:mod:`bot.cli.main`) and its command groups."""
