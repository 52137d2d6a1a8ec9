# The hand-written part of trunk_api/_core/__init__.pyi: the extension module itself (its submodules' stubs are
# the other files here). scripts/generate-stubs adds the header, the imports and the submodules.

__version__: str

def _connect_facade(errors: Any, frames: Any, arrow: Any) -> None: ...
