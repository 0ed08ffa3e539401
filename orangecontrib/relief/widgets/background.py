"""Running the engine in a widget's background task (``ConcurrentWidgetMixin``)."""
from Orange.widgets.utils.concurrent import ConcurrentWidgetMixin
from Orange.widgets.utils.owlearnerwidget import OWBaseLearner

__all__ = ["Cancelled", "progress_callback", "fit_in_background", "BackgroundLearnerWidget"]


class Cancelled(Exception):
    """Raised from the progress callback when the widget asks the task to stop."""


def progress_callback(state, start=0.0, end=100.0):
    """The engine's ``callback(fraction)`` for a task with ``state`` (a ``TaskState``): sets the
    progress bar to ``start + fraction * (end - start)`` percent, and raises
    :class:`Cancelled` once interruption is requested, which stops the engine."""
    def callback(fraction):
        if state.is_interruption_requested():
            raise Cancelled
        state.set_progress_value(start + fraction * (end - start))
    return callback


def fit_in_background(learner, data, state):
    """Fit ``learner`` on ``data`` in a background task; cancelling stops the fit."""
    callback = progress_callback(state)
    return learner(data, progress_callback=lambda fraction, *_: callback(fraction))


class BackgroundLearnerWidget(OWBaseLearner, ConcurrentWidgetMixin):
    """A learner widget that fits in a background task, with a progress bar and a cancel that
    stops the fit (as Orange's Scoring Sheet widget; ``OWBaseLearner`` fits in the GUI thread).
    Subclasses show what the model holds in :meth:`model_changed`."""

    def __init__(self):
        ConcurrentWidgetMixin.__init__(self)
        OWBaseLearner.__init__(self)

    @OWBaseLearner.Inputs.data
    def set_data(self, data):
        self.cancel()
        super().set_data(data)

    @OWBaseLearner.Inputs.preprocessor
    def set_preprocessor(self, preprocessor):
        self.cancel()
        super().set_preprocessor(preprocessor)

    def update_model(self):
        self.cancel()
        self.show_fitting_failed(None)
        self.model = None
        self.model_changed()
        if self.check_data():
            self.start(fit_in_background, self.learner, self.data)
        else:
            self.Outputs.model.send(None)

    def on_partial_result(self, _):
        pass

    def on_done(self, result):
        self.model = result
        self.model.name = self.effective_learner_name()
        self.model.instances = self.data
        self.Outputs.model.send(result)
        self.model_changed()

    def on_exception(self, ex):
        self.Outputs.model.send(None)
        self.show_fitting_failed(ex)

    def model_changed(self):
        """Called when ``self.model`` changes (to None while fitting)."""

    def onDeleteWidget(self):
        self.shutdown()
        super().onDeleteWidget()
