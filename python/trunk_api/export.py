"""Export for warehouses: folders of Parquet files that DuckDB, Polars and Spark read as they are (Hive-style
partitions, ``name=value`` directories).

- :func:`export_failing` writes the failing tests of every UTC day of a range to ``DIR/day=YYYY-MM-DD/``, one
  day window per partition (the tests that failed that day). It is incremental: a day already written is
  skipped unless ``refresh``; the current day, still going on, is always written again.
- :func:`export_unhealthy` writes today's flaky and broken tests to ``DIR/snapshot=YYYY-MM-DD/``. The service
  keeps no history of test health, so daily runs build it; a second run on the same day replaces that day's
  snapshot.

A partition is written to a temporary directory and renamed into place, so an interrupted run never leaves a
half-written partition that a later run would take as done. The hidden temporary directories carry the writing
process's id: those of a run that was killed (``kill -9``, a power cut: no cleanup ran) are swept by the next run
into the same folder, while those of a run still going on beside it are left alone. A day without failing tests
holds an empty ``_EMPTY`` marker rather than a file. The columns are those of ``to_pandas()``, with the list columns
(``codeowners``, ``most_common_failures``) as JSON text so that every partition has the same schema. Parquet
needs pyarrow (``pip install 'trunk-api[export]'``).
"""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from trunk_api.client import Client, RepoLike

__all__ = ["Partition", "export_failing", "export_unhealthy", "require_parquet"]

_DAY = timedelta(days=1)
#: The hidden directories _write_partition makes beside a partition: ".<key>=<value>.<pid>.<anything>".
_TEMPORARY = re.compile(r"\.(?:day|snapshot)=[^./]+\.(\d+)\.")
DATA_FILE = "part-0.parquet"
EMPTY_MARKER = "_EMPTY"


@dataclass(frozen=True)
class Partition:
    """One partition of an export: its directory, how many rows, and whether this run wrote it."""

    path: Path
    rows: int
    written: bool


def require_parquet() -> None:
    """pyarrow, which pandas writes Parquet with; a ModuleNotFoundError naming it and the pip command if missing."""
    try:
        importlib.import_module("pyarrow")  # by name: pyarrow and pandas ship no type information
    except ImportError:
        raise ModuleNotFoundError(
            f"writing Parquet needs pyarrow, and this Python ({sys.executable}) cannot import it: "
            f"pip install 'trunk-api[export]', or {sys.executable} -m pip install pyarrow",
            name="pyarrow",
        ) from None


def _is_written(partition: Path) -> bool:
    return (partition / DATA_FILE).exists() or (partition / EMPTY_MARKER).exists()


def _json_text(value: Any) -> str | None:
    if value is None:
        return None
    return json.dumps(value, default=lambda v: v.isoformat() if hasattr(v, "isoformat") else str(v))


def _with_lists_as_json(frame: Any) -> Any:
    """The list columns (codeowners, most common failures: Python objects in the frame) as JSON text. A day
    where a list column is all empty would otherwise get Parquet's null type there, and the partitions would not
    share one schema, which Polars and Spark require."""
    frame = frame.copy()
    for name in frame.columns:
        if frame[name].dtype == object:
            frame[name] = frame[name].map(_json_text).astype("string")
    return frame


def _write_partition(partition: Path, frame: Any) -> None:
    """Writes the frame (or the empty marker) into a fresh directory beside `partition`, then swaps it in."""
    partition.parent.mkdir(parents=True, exist_ok=True)
    prefix = f".{partition.name}.{os.getpid()}."  # the owner's id, for _sweep_leftovers
    staging = Path(tempfile.mkdtemp(prefix=prefix, dir=partition.parent))
    try:
        if len(frame):
            _with_lists_as_json(frame).to_parquet(staging / DATA_FILE, index=False)
        else:
            (staging / EMPTY_MARKER).touch()
        if partition.exists():
            old = partition.with_name(f"{prefix}old")
            shutil.rmtree(old, ignore_errors=True)
            os.replace(partition, old)
            os.replace(staging, partition)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(staging, partition)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, under another user
    return True


def _sweep_leftovers(root: Path) -> None:
    """Removes the temporary directories of runs into ``root`` whose process is gone: a run killed before its
    cleanup left them, and nothing else would ever remove them. A reused process id only delays the sweep."""
    try:
        entries = list(root.iterdir())
    except (FileNotFoundError, NotADirectoryError):
        return
    for entry in entries:
        owner = _TEMPORARY.match(entry.name)
        if owner is not None and entry.is_dir() and not _running(int(owner.group(1))):
            shutil.rmtree(entry, ignore_errors=True)


def days_between(start: datetime, end: datetime) -> list[date]:
    """The UTC days that [start, end) touches."""
    first = start.astimezone(timezone.utc).date()
    last = (end.astimezone(timezone.utc) - timedelta(microseconds=1)).date()
    return [first + timedelta(days=n) for n in range((last - first).days + 1)]


def export_failing(client: Client, repo: RepoLike, org_url_slug: str, start: datetime, end: datetime,
                   to: str | os.PathLike[str], *, refresh: bool = False,
                   on_partition: Callable[[Partition], None] | None = None) -> list[Partition]:
    """Writes ``to/day=YYYY-MM-DD/`` for every UTC day of [start, end) (whole days: the first and last day are
    taken from midnight to midnight, the current day up to now). Returns the partitions, in day order."""
    require_parquet()
    now = datetime.now(timezone.utc)
    root = Path(to)
    _sweep_leftovers(root)
    done: list[Partition] = []
    for day in days_between(start, end):
        day_start = datetime.combine(day, time(), timezone.utc)
        day_end = min(day_start + _DAY, now)
        if day_end <= day_start:
            break  # a day still to come
        partition = root / f"day={day.isoformat()}"
        complete = day_start + _DAY <= now
        if complete and not refresh and _is_written(partition):
            result = Partition(partition, _rows_of(partition), written=False)
        else:
            frame = client.iter_failing_tests(repo, org_url_slug, day_start, day_end, progress=False).to_pandas()
            _write_partition(partition, frame)
            result = Partition(partition, len(frame), written=True)
        done.append(result)
        if on_partition is not None:
            on_partition(result)
    return done


def export_unhealthy(client: Client, repo: RepoLike, org_url_slug: str, to: str | os.PathLike[str], *,
                     statuses: tuple[str, ...] = ("FLAKY", "BROKEN"),
                     today: date | None = None) -> Partition:
    """Writes today's (UTC) unhealthy tests of every status in ``statuses`` to ``to/snapshot=YYYY-MM-DD/``,
    replacing a snapshot written earlier the same day. Their ``status_value`` column tells them apart."""
    require_parquet()
    pandas = importlib.import_module("pandas")

    day = today or datetime.now(timezone.utc).date()
    frames = [client.iter_unhealthy_tests(repo, org_url_slug, status, progress=False).to_pandas()
              for status in statuses]
    frame = pandas.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    partition = Path(to) / f"snapshot={day.isoformat()}"
    _sweep_leftovers(partition.parent)
    _write_partition(partition, frame)
    return Partition(partition, len(frame), written=True)


def _rows_of(partition: Path) -> int:
    if (partition / EMPTY_MARKER).exists():
        return 0
    parquet = importlib.import_module("pyarrow.parquet")
    return int(parquet.ParquetFile(partition / DATA_FILE).metadata.num_rows)
