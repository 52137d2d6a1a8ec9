# The hand-written part of trunk_api/_core/models.pyi: scripts/generate-stubs puts the declared enumerations and
# model classes at the marker; below it, what a caller may pass where a model is expected.

# @models: scripts/generate-stubs puts the enumerations and the model classes bound here

_RepoLike = Repo | str
_TimeLike = datetime | str
