"""Orange3-Relief: non-myopic attribute estimation (the Relief family, Contextual Merit,
the unified Pi framework), CORE trees and OBLIVION for Orange."""
from setuptools import setup, find_namespace_packages

with open("README.md", encoding="utf-8") as f:
    LONG_DESCRIPTION = f.read()

setup(
    name="Orange3-Relief",
    version="0.1.0",
    description="Relief-family attribute estimation, CORE trees and OBLIVION for Orange",
    long_description=LONG_DESCRIPTION,
    long_description_content_type="text/markdown",
    license="GPL-3.0-or-later",
    keywords=["orange3 add-on", "relief", "relieff", "feature selection", "decision trees"],
    packages=find_namespace_packages(include=["orangecontrib.*"]),
    package_data={
        "orangecontrib.relief.widgets": ["icons/*.svg", "help/*.html", "help/widgets/*.html",
                                         "help/widgets/images/*.png"],
        "orangecontrib.relief.workflows": ["*.ows", "*.tab"],
    },
    include_package_data=True,
    python_requires=">=3.10",
    install_requires=[
        "Orange3>=3.38",
        "orange-widget-base",
        "orange-canvas-core",
        "AnyQt",
        "PyQt6",
        "PyQt6-WebEngine",      # Orange's canvas (help, reports, the workflow runner) needs it
        "numpy",
        "scipy",
        "pyqtgraph",
        "numba>=0.59",
    ],
    extras_require={
        "test": ["pytest", "sphinx", "numpydoc", "myst-parser"],  # the docs build is a test
        "doc": ["sphinx", "numpydoc", "myst-parser"],
        "bench": ["skrebate"],
    },
    entry_points={
        "console_scripts": ["orange-relief = orangecontrib.relief.cli:main"],
        "orange3.addon": ["Relief = orangecontrib.relief"],
        "orange.widgets": ["Relief = orangecontrib.relief.widgets"],
        "orange.widgets.tutorials": ["relief = orangecontrib.relief.workflows"],
        "orange.canvas.help": ["html-index = orangecontrib.relief.widgets:WIDGET_HELP_PATH"],
    },
    classifiers=[
        "Programming Language :: Python :: 3",
        "License :: OSI Approved :: GNU General Public License v3 or later (GPLv3+)",
        "Operating System :: OS Independent",
        "Topic :: Scientific/Engineering :: Artificial Intelligence",
    ],
    zip_safe=False,
)
