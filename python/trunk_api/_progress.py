"""Progress bars for long listings (``progress=`` of the ``iter_*`` methods), drawn with ``tqdm.auto``.

``progress``: ``True`` draws a bar, ``False`` never does, ``"auto"`` (the default) draws one only in a notebook
(a running Jupyter kernel) when tqdm is installed, so scripts and pipes stay quiet. The bar is fed once per page
by the C++ iterator (never per item: without a bar nothing is called at all); its total is the listing's
``total_rows`` from the first page (cut to ``max_results``), or unknown for listings without one.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["ProgressLike", "page_reporter", "wanted"]

#: What ``progress=`` takes.
ProgressLike = bool | str


def _in_notebook() -> bool:
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    get_ipython = getattr(shell, "get_ipython", None)
    running = get_ipython() if get_ipython is not None else None
    # A Jupyter kernel's shell; the terminal IPython (TerminalInteractiveShell) is a script's place.
    return type(running).__name__ == "ZMQInteractiveShell"


def wanted(progress: ProgressLike) -> bool:
    """Whether to draw a bar; ValueError for anything but True, False and "auto"."""
    if progress is True or progress is False:
        return progress
    if progress == "auto":
        return _in_notebook() and importlib.util.find_spec("tqdm") is not None
    raise ValueError(f"progress must be True, False or 'auto', not {progress!r}")


def _tqdm() -> Any:
    try:
        return importlib.import_module("tqdm.auto").tqdm
    except ImportError:
        raise ModuleNotFoundError(
            f"progress=True needs tqdm, and this Python ({sys.executable}) cannot import it: "
            f"pip install tqdm, or {sys.executable} -m pip install tqdm",
            name="tqdm",
        ) from None


def count_reporter(progress: ProgressLike, description: str,
                   unit: str = "tests") -> Callable[[int, int], None] | None:
    """The on_progress(ended, total) callback of a C++ bulk call, or None (no bar: nothing will be called).
    The bar starts with the first input that ends (its total is the call's) and closes with the last."""
    if not wanted(progress):
        return None
    make_bar = _tqdm()
    bars: list[Any] = []

    def on_progress(ended: int, total: int) -> None:
        if not bars:
            bars.append(make_bar(desc=description, unit=unit, total=total, leave=True))
        bar = bars[0]
        bar.update(ended - bar.n)
        if ended >= total:
            bar.close()

    return on_progress


def page_reporter(progress: ProgressLike, description: str, max_results: int | None,
                  unit: str = "rows") -> Callable[[int, int | None, bool], None] | None:
    """The on_page callback for a C++ listing iterator, or None (no bar: nothing will be called)."""
    if not wanted(progress):
        return None
    make_bar = _tqdm()  # now: a missing tqdm is said when the listing is made, not halfway through it
    bars: list[Any] = []

    def on_page(count: int, total_rows: int | None, last: bool) -> None:
        if not bars:  # drawn from the first page on, not for a listing that is never read
            bars.append(make_bar(desc=description, unit=unit, total=max_results, leave=True))
        bar = bars[0]
        if total_rows is not None:
            total = total_rows if max_results is None else min(total_rows, max_results)
            if bar.total != total:
                bar.total = total
                bar.refresh()
        if max_results is not None:
            count = min(count, max_results - bar.n)
        bar.update(count)
        if last or (bar.total is not None and bar.n >= bar.total):
            bar.close()

    return on_page


def on_page_keywords(progress: ProgressLike, description: str, max_results: object) -> dict[str, Any]:
    """The core listing's on_page keyword when a bar is wanted, else nothing (the listing then calls nothing)."""
    limit = max_results if isinstance(max_results, int) and not isinstance(max_results, bool) else None
    reporter = page_reporter(progress, description, limit)
    return {} if reporter is None else {"on_page": reporter}
