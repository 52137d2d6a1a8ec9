"""The enumerations of the Trunk v1 API as real :class:`enum.Enum` classes.

Every member is also a ``str`` whose value is the exact wire string, so ``QueueState.PAUSED == "paused"``
and members can be used anywhere a string is expected. Results carry the member when the value is one
this library knows, and the raw string otherwise (the service adds values over time).
"""

from __future__ import annotations

import enum

__all__ = [
    "DirectMergeMode",
    "HealthStatus",
    "MergeMethod",
    "OptimizationMode",
    "QueueMode",
    "QueueState",
]


class _WireEnum(str, enum.Enum):
    """A str-valued enum whose ``str()`` and ``format()`` give the wire string."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, format_spec: str) -> str:
        return format(str(self.value), format_spec)


class QueueState(_WireEnum):
    """State of a merge queue. Requests may set RUNNING, PAUSED or DRAINING; SWITCHING_MODES is reported only."""

    RUNNING = "running"
    PAUSED = "paused"
    DRAINING = "draining"
    SWITCHING_MODES = "switching_modes"


class QueueMode(_WireEnum):
    """``single`` tests pull requests one at a time; ``parallel`` tests several at once."""

    SINGLE = "single"
    PARALLEL = "parallel"


class DirectMergeMode(_WireEnum):
    """``always`` lets an up-to-date pull request merge directly instead of being tested in the queue."""

    OFF = "off"
    ALWAYS = "always"


class OptimizationMode(_WireEnum):
    """``bisection_skip_redundant_tests`` bisects failed batches and skips redundant tests."""

    OFF = "off"
    BISECTION_SKIP_REDUNDANT_TESTS = "bisection_skip_redundant_tests"


class MergeMethod(_WireEnum):
    """The Git strategy used to merge a pull request into the target branch."""

    MERGE_COMMIT = "merge_commit"
    SQUASH = "squash"
    REBASE = "rebase"


class HealthStatus(_WireEnum):
    """Filter of ``list_unhealthy_tests``. Inputs accept the strings in any case (``"flaky"`` too)."""

    FLAKY = "FLAKY"
    BROKEN = "BROKEN"

    @classmethod
    def _missing_(cls, value: object) -> HealthStatus | None:
        if isinstance(value, str):
            upper = value.upper()
            for member in cls:
                if member.value == upper:
                    return member
        return None
