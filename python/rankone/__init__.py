"""RankOne from Python.

- ``rankone.sklearn``: one scikit-learn estimator per estimator plugin (``GfmOnePass``, ``Fm``, …),
  its parameters the plugin's declared schema, its fit the CLI's trial on your arrays.
- ``rankone.load_model(folder)``: a saved model as ``rankone model`` and ``Estimator.save`` write it.
- ``rankone.run(experiment)`` and ``rankone.load(folder)``: studies, run by the CLI and read back as
  pandas DataFrames.

Documentation: docs/python.md.
"""
from .models import Model, load_model
from .study import load, run

__all__ = ["Model", "load_model", "run", "load"]
