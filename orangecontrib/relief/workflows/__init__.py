"""Example workflows of Orange3-Relief, registered as tutorials (the ``orange.widgets.tutorials``
entry point): the canvas lists the ``.ows`` files of this package under Help > Examples, and
the small data sets they read are shipped beside them."""
