"""Orange3-Relief: non-myopic attribute estimation (the Relief family, Contextual Merit,
the unified Pi framework), CORE trees and OBLIVION for Orange.

Packaged as Orange's own add-ons are: the Qt binding is left to Orange and AnyQt (install
Orange with PyQt5 or PyQt6 as its documentation says); the ``orange3 add-on`` keyword lists the
package in Orange's add-on dialog.
"""
import re
from pathlib import Path

from setuptools import find_namespace_packages, setup

HERE = Path(__file__).resolve().parent


def version():
    """``__version__`` of orangecontrib/relief/__init__.py (read, not imported: installing
    must not need the dependencies)."""
    text = (HERE / "orangecontrib" / "relief" / "__init__.py").read_text(encoding="utf-8")
    return re.search(r'^__version__ = "([^"]+)"', text, re.M).group(1)


setup(
    name="Orange3-Relief",
    version=version(),
    description="Relief-family attribute estimation, CORE trees and OBLIVION for Orange",
    long_description=(HERE / "README.md").read_text(encoding="utf-8"),
    long_description_content_type="text/markdown",
    author="Orange3-Relief contributors",
    license="GPL-3.0-or-later",
    project_urls={
        "Orange": "https://orangedatamining.com",
        "Orange documentation": "https://orangedatamining.com/docs/",
    },
    keywords=["orange3 add-on", "relief", "relieff", "rrelieff", "feature selection",
              "attribute estimation", "decision trees", "data mining"],
    packages=find_namespace_packages(include=["orangecontrib.*"]),
    package_data={
        "orangecontrib.relief.widgets": ["icons/*.svg", "help/*.html", "help/widgets/*.html",
                                         "help/widgets/images/*.png"],
        "orangecontrib.relief.workflows": ["*.ows", "*.tab"],
    },
    include_package_data=True,
    python_requires=">=3.10",
    install_requires=[
        "Orange3>=3.38",        # brings AnyQt, orange-widget-base, orange-canvas-core, pyqtgraph
        "orange-widget-base",
        "orange-canvas-core",
        "AnyQt",
        "numpy",
        "scipy",
        "pyqtgraph",
        "numba>=0.59",
        "tqdm",                 # the command line's progress bar
    ],
    extras_require={
        # the docs build is a test; the Dask backend's tests run too; statsmodels fits NPDR's
        # regressions and firthmodels the Firth fits independently
        "test": ["pytest", "pytest-xdist", "sphinx", "numpydoc", "myst-parser",
                 "dask[distributed,dataframe]",
                 "bed-reader", "pyarrow", "statsmodels", "firthmodels"],
        "doc": ["sphinx", "numpydoc", "myst-parser"],
        "bench": ["skrebate", "fast-select"],
        "dask": ["dask[distributed,dataframe]"],
        "plink": ["bed-reader"],            # PLINK .bed/.bim/.fam genotypes
        "parquet": ["pyarrow"],             # Parquet files and folders
    },
    entry_points={
        "console_scripts": ["orange-relief = orangecontrib.relief.cli:main"],
        "orange3.addon": ["Relief = orangecontrib.relief"],
        "orange.widgets": ["Relief = orangecontrib.relief.widgets"],
        "orange.widgets.tutorials": ["relief = orangecontrib.relief.workflows"],
        "orange.canvas.help": ["html-index = orangecontrib.relief.widgets:WIDGET_HELP_PATH"],
    },
    classifiers=[
        "Development Status :: 4 - Beta",
        "Environment :: X11 Applications :: Qt",
        "Environment :: Console",
        "Intended Audience :: Science/Research",
        "Intended Audience :: Education",
        "License :: OSI Approved :: GNU General Public License v3 or later (GPLv3+)",
        "Operating System :: OS Independent",
        "Programming Language :: Python :: 3",
        "Programming Language :: Python :: 3 :: Only",
        "Topic :: Scientific/Engineering :: Artificial Intelligence",
        "Topic :: Scientific/Engineering :: Information Analysis",
        "Topic :: Software Development :: Libraries :: Python Modules",
    ],
    zip_safe=False,
)
