"""Griffe extension for the API reference: the package's docstrings use reStructuredText's roles
(:class:`Client`, :meth:`advance`, :attr:`clock_now`), which Markdown would show as literal text. Each becomes
a code span (`Client`), the way the names read in help() too. Cross-links are left to the headings.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:class|meth|func|attr|mod|exc|data|obj):`~?([^`]+)`")


class SphinxRoles(griffe.Extension):
    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = ROLE.sub(r"`\1`", obj.docstring.value)
