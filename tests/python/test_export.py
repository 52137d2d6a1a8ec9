"""`trunk-api export` and trunk_api.export against the sandbox: Parquet partitioned by UTC day, incremental, a
dated snapshot of unhealthy tests, read back with DuckDB; a partition is never half-written."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

import pytest

import trunk_api
from trunk_api import export

from cli_support import cli, sandbox, target  # noqa: F401  (fixtures are used by name)

import duckdb  # noqa: E402  (in the test extra)


def day_window(day: dt.date, now: dt.datetime) -> tuple[dt.datetime, dt.datetime]:
    start = dt.datetime.combine(day, dt.time(), dt.timezone.utc)
    return start, min(start + dt.timedelta(days=1), now)


def test_failing_by_day_matches_the_day_listings_and_duckdb_reads_it(cli, sandbox, target, tmp_path: Path) -> None:
    run = cli("export", "failing", *target, "--since", "5d", "--to", str(tmp_path))
    assert run.code == 0, run.err
    lines = [line.split("\t") for line in run.out.splitlines()]
    today = dt.datetime.now(dt.timezone.utc).date()
    days = [today - dt.timedelta(days=n) for n in range(5, -1, -1)]
    assert [Path(path).name for path, _, _ in lines] == [f"day={day.isoformat()}" for day in days]
    assert all(state == "written" for _, _, state in lines)
    client = sandbox.client()
    repo = sandbox.repos[0]
    now = dt.datetime.now(dt.timezone.utc)
    total = 0
    for day, (path, rows, _) in zip(days[:-1], lines[:-1]):  # whole days (today is still moving)
        start, end = day_window(day, now)
        expected = client.iter_failing_tests(repo, sandbox.org_url_slug, start, end).to_pandas()
        assert rows == f"{len(expected)} rows"
        if len(expected):
            written = duckdb.sql(f"select id from read_parquet('{path}/*.parquet')").fetchall()
            assert [row[0] for row in written] == list(expected["id"])
        total += len(expected)
    assert total > 0
    # The whole folder, as DuckDB reads Hive partitions: a `day` column from the directory names.
    counted = duckdb.sql(f"select day, count(*) from read_parquet('{tmp_path}/*/*.parquet', hive_partitioning=true)"
                         " group by day order by day").fetchall()
    assert sum(count for _, count in counted) == sum(int(rows.split()[0]) for _, rows, _ in lines)
    codeowners = duckdb.sql(f"select codeowners from read_parquet('{tmp_path}/*/*.parquet') "
                            "where codeowners is not null limit 1").fetchall()
    assert codeowners and codeowners[0][0].startswith("[")  # lists are JSON text


def test_a_second_run_skips_the_days_already_written_unless_refresh(cli, target, tmp_path: Path) -> None:
    assert cli("export", "failing", *target, "--since", "3d", "--to", str(tmp_path)).code == 0
    again = [line.split("\t") for line in cli("export", "failing", *target, "--since", "3d", "--to",
                                              str(tmp_path)).out.splitlines()]
    assert [state for _, _, state in again] == ["already written"] * 3 + ["written"]  # today is written again
    refreshed = cli("export", "failing", *target, "--since", "3d", "--to", str(tmp_path), "--refresh")
    assert [line.split("\t")[2] for line in refreshed.out.splitlines()] == ["written"] * 4
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging left behind


def test_unhealthy_snapshot_of_the_day_replaces_itself(cli, sandbox, target, tmp_path: Path) -> None:
    run = cli("export", "unhealthy", *target, "--to", str(tmp_path))
    assert run.code == 0, run.err
    today = dt.datetime.now(dt.timezone.utc).date().isoformat()
    snapshot = tmp_path / f"snapshot={today}"
    rows = duckdb.sql(f"select status_value, count(*) from read_parquet('{snapshot}/*.parquet') "
                      "group by status_value order by status_value").fetchall()
    client = sandbox.client()
    repo = sandbox.repos[0]
    expected = {status.lower(): len(client.iter_unhealthy_tests(repo, sandbox.org_url_slug, status).to_list())
                for status in ("BROKEN", "FLAKY")}
    assert dict(rows) == {status: count for status, count in expected.items() if count}
    assert cli("export", "unhealthy", *target, "--to", str(tmp_path)).code == 0
    assert [p.name for p in tmp_path.iterdir()] == [snapshot.name]


def test_usage_errors_and_a_missing_pyarrow(cli, target, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    run = cli("export", "failing", *target, "--end", "2026-11-01T00:00:00Z", "--to", str(tmp_path))
    assert run.code == 2 and "--end needs --start" in run.err
    run = cli("export", "failing", *target, "--start", "2026-11-01", "--to", str(tmp_path))
    assert run.code == 2 and "no offset" in run.err
    run = cli("export", "failing", *target, "--start", "2026-11-02T00:00:00Z", "--end", "2026-11-01T00:00:00Z",
              "--to", str(tmp_path))
    assert run.code == 2 and "range is empty" in run.err
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    run = cli("export", "unhealthy", *target, "--to", str(tmp_path))
    assert run.code == 2 and "pip install 'trunk-api[export]'" in run.err
    assert list(tmp_path.iterdir()) == []


def test_an_interrupted_write_leaves_no_partition(sandbox, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pandas

    def broken(self, *args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(pandas.DataFrame, "to_parquet", broken)
    now = dt.datetime.now(dt.timezone.utc)
    with pytest.raises(KeyboardInterrupt):
        export.export_failing(sandbox.client(), sandbox.repos[0], sandbox.org_url_slug, now - dt.timedelta(days=3),
                              now, tmp_path)
    # Days without failing tests (written as an empty marker, before the failure) may be there; no day with
    # data, and no staging directory, is.
    for partition in tmp_path.iterdir():
        assert partition.name.startswith("day=") and [f.name for f in partition.iterdir()] == [export.EMPTY_MARKER]


_KILLED_MID_WRITE = """
import datetime as dt, os, signal, sys
import pandas
from trunk_api import Sandbox, export

def killed(self, path, *args, **kwargs):
    with open(path, "wb") as half_written:
        half_written.write(b"PAR1")
    os.kill(os.getpid(), signal.SIGKILL)  # no except/finally runs: as a kill -9 from outside

pandas.DataFrame.to_parquet = killed
with Sandbox(seed=5, tests=600) as box:
    now = dt.datetime.now(dt.timezone.utc)
    export.export_failing(box.client(), box.repos[0], box.org_url_slug, now - dt.timedelta(days=3), now, sys.argv[1])
"""


def test_the_next_run_sweeps_what_a_killed_run_left(sandbox, tmp_path: Path) -> None:
    import os
    import signal
    import subprocess

    killed = subprocess.run([sys.executable, "-c", _KILLED_MID_WRITE, str(tmp_path)], capture_output=True, text=True,
                            timeout=120)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    left = [entry.name for entry in tmp_path.iterdir() if entry.name.startswith(".")]
    assert left and all(name.startswith(".day=") for name in left)  # its hidden day folder stays behind
    # Another run going on beside this one (here: this very process) keeps its temporary folder.
    running = tmp_path / f".day=2026-01-01.{os.getpid()}.abcd1234"
    running.mkdir()
    now = dt.datetime.now(dt.timezone.utc)
    done = export.export_failing(sandbox.client(), sandbox.repos[0], sandbox.org_url_slug,
                                 now - dt.timedelta(days=3), now, tmp_path)
    assert sorted(entry.name for entry in tmp_path.iterdir() if entry.name.startswith(".")) == [running.name]
    assert sorted(entry.name for entry in tmp_path.iterdir() if not entry.name.startswith(".")) == \
        sorted(partition.path.name for partition in done)
    for partition in done:  # and the data is whole
        files = f"{partition.path}/*.parquet"
        empty = (partition.path / export.EMPTY_MARKER).exists()
        assert partition.rows == (0 if empty else len(duckdb.sql(f"select 1 from read_parquet('{files}')").fetchall()))
    # The snapshot export sweeps its folder too.
    (tmp_path / ".snapshot=2026-01-01.999999999.old").mkdir()
    export.export_unhealthy(sandbox.client(), sandbox.repos[0], sandbox.org_url_slug, tmp_path)
    assert sorted(entry.name for entry in tmp_path.iterdir() if entry.name.startswith(".")) == [running.name]


def test_days_between_covers_partial_first_and_last_days() -> None:
    start = dt.datetime(2026, 11, 1, 23, 0, tzinfo=dt.timezone.utc)
    assert export.days_between(start, start + dt.timedelta(hours=2)) == [dt.date(2026, 11, 1), dt.date(2026, 11, 2)]
    midnight = dt.datetime(2026, 11, 3, tzinfo=dt.timezone.utc)
    assert export.days_between(midnight - dt.timedelta(days=1), midnight) == [dt.date(2026, 11, 2)]
    assert trunk_api.export.Partition(Path("x"), 0, True).rows == 0
