"""The argument types every public call accepts, in a module of their own so that the modules using them
(client, history, export, sandbox) import them from here rather than from each other."""

from __future__ import annotations

from datetime import datetime

from trunk_api._core import Repo

__all__ = ["RepoLike", "TimeLike"]

#: A repository: a :class:`Repo` or a ``"host/owner/name"`` string (GitLab owners may contain ``/``); the address
#: of its page (``https://github.com/acme/widgets.git``) names it too.
RepoLike = Repo | str
#: A time: an aware ``datetime`` or ``pandas.Timestamp``, or RFC 3339 text with its offset. Naive times are
#: refused (a ValidationError), not guessed to be UTC or local time.
TimeLike = datetime | str
