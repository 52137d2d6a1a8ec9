"""trunk_api: the Trunk v1 API (merge queue and flaky tests) from Python, with a C++ core."""

from trunk_api._core import __version__

__all__ = ["__version__"]
