"""Issue 42, operators told the truth: a database that cannot write, met by a real ``serve`` while it
answers a signed command, is named in the log for what it is and counted as a failure in
``/metrics`` (``vllm_path_failures_total{cause="database_read_only"}``), not only as an ``ok``
request. PostgreSQL made read-only for new sessions (``default_transaction_read_only``) with the
door's pooled sessions ended, so the next ones it opens cannot write."""

from __future__ import annotations

import os
import re
import signal

import psycopg
import pytest
from sqlalchemy.engine import make_url

from tests.dbutil import admin_url, migrated_database_url
from tests.e2e.helpers import BOT_TOKEN, SIGNING_SECRET, ack_shown
from tests.e2e.slack_requests import get, signed_post, slash_command_body
from tests.serveproc import serve_healthy
from tests.waits import PATIENCE_S, wait_exit, wait_until

pytestmark = pytest.mark.slow


def _failures(url: str, cause: str) -> float:
    text = get(url + "/metrics").text
    found = re.search(rf'^vllm_path_failures_total\{{cause="{cause}"\}} (\S+)$', text, re.M)
    return float(found.group(1)) if found else 0.0


def test_a_read_only_database_is_named_and_counted_as_a_failure(tmp_path, standin) -> None:
    with migrated_database_url("postgres", tmp_path) as db_url:
        name = make_url(db_url).database
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "DATABASE_URL", "LOG_LEVEL"))}
        env.update(
            DATABASE_URL=db_url,
            SLACK_BOT_TOKEN=BOT_TOKEN,
            SLACK_SIGNING_SECRET=SIGNING_SECRET,
            SLACK_API_URL=standin.api_url,
            LOG_LEVEL="INFO",
        )
        proc, url, out, readers = serve_healthy(tmp_path, env, ["--pid-file", ""])
        try:
            assert _failures(url, "database_read_only") == 0
            with psycopg.connect(admin_url().replace("+psycopg", ""), autocommit=True) as admin:
                admin.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
                admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE datname = %s AND pid <> pg_backend_pid()",
                    (name,),
                )
            response_url = standin.response_url()
            body = slash_command_body("follow spec", response_url=response_url)
            acked = ack_shown(standin, signed_post(url + "/slack/events", body, SIGNING_SECRET), response_url)
            assert acked.status == 200  # Slack is answered; the person gets an apology, not silence
            wait_until(lambda: _failures(url, "database_read_only") >= 1, PATIENCE_S, "the failure counted")
            assert standin.wait_for_response(response_url, timeout=PATIENCE_S).body
        finally:
            proc.send_signal(signal.SIGTERM)
            wait_exit(proc)
            for reader in readers:
                reader.join(PATIENCE_S)
            with psycopg.connect(
                admin_url().replace("+psycopg", ""), autocommit=True
            ) as admin:  # so the database can be dropped
                admin.execute(f'ALTER DATABASE "{name}" RESET default_transaction_read_only')
        log = (out.get("stdout", b"") + out.get("stderr", b"")).decode("utf-8", "replace")
        assert "the database is read-only" in log and "unreachable" not in log, log[-3000:]
