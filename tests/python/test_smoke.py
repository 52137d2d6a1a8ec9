import re

import trunk_api


def test_version_is_semver() -> None:
    assert re.fullmatch(r"\d+\.\d+\.\d+", trunk_api.__version__)
