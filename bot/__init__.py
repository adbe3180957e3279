"""vllm-path: a Slack app that turns vLLM blog posts into reading paths people finish."""

__version__ = "0.1.0"
