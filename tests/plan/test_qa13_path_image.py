"""QA round 13: ``vllm-path path-image -o`` into a folder that does not exist said Python's
"[Errno 2] No such file or directory"; it says the folder does not exist (click's runner)."""

from __future__ import annotations

from click.testing import CliRunner

from bot.cli.main import main


def test_a_missing_folder_is_said_as_such_without_errno_or_traceback(tmp_path) -> None:
    folder = tmp_path / "nonexistent" / "dir"
    result = CliRunner().invoke(main, ["path-image", "spec", "-o", str(folder / "x.png")])
    assert result.exit_code == 2
    assert result.exception is None or isinstance(result.exception, SystemExit)  # no traceback
    assert f"error: the folder {folder} does not exist" in result.output
    assert "Errno" not in result.output and not folder.exists()
    a_file = tmp_path / "plain.txt"
    a_file.write_text("x", encoding="utf-8")
    under_file = CliRunner().invoke(main, ["path-image", "spec", "-o", str(a_file / "x.svg")])
    assert under_file.exit_code == 2 and f"the folder {a_file} is a file, not a folder" in under_file.output
