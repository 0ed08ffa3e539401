"""How the Attribute Estimation widget's stored settings of earlier versions are brought up to
date (its ``migrate_settings`` and ``migrate_context``)."""
from orangecontrib.relief import scoring

__all__ = ["migrate_settings", "migrate_context"]


def _scorer_or_none(name):
    try:
        return scoring.scorer_by_name(str(name))
    except ValueError:
        return None


def migrate_context(context, version):
    """Version 4 added the covariates, stored per domain (none before)."""
    if version is None or version < 4:
        context.values.setdefault("covariates", [])


def migrate_settings(settings, version):
    """Version 1 stored the estimator possibly under an older name (a class name such as
    "Gini"); parameters an estimator no longer has are dropped when its editor is built
    (:class:`.estimatorparams.ParameterEditor`). Version 3 added the compared estimators
    (none before). Versions 2 to 4 kept a choice per target type, "estimator_name" for a
    categorical target and "regression_estimator_name" for a numeric one: the first is the
    choice now (the second where there was no first)."""
    if version is None or version < 2:
        names = {}
        for key in ("estimator_name", "regression_estimator_name"):
            try:
                names[key] = scoring.scorer_by_name(str(settings[key])).stem()
            except (KeyError, ValueError):
                pass
        settings.update(names)
        params = settings.get("estimator_params")
        if not isinstance(params, dict):
            settings.pop("estimator_params", None)
        else:
            settings["estimator_params"] = {
                cls_.stem(): dict(params[name])
                for name in params if isinstance(params[name], dict)
                for cls_ in [_scorer_or_none(name)] if cls_ is not None}
    if version is None or version < 3:
        settings.setdefault("compared", [])
    if version is None or version < 5:
        regression = settings.pop("regression_estimator_name", None)
        if "estimator_name" not in settings and regression is not None:
            settings["estimator_name"] = regression
