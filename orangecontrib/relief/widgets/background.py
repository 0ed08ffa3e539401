"""Running the engine in a widget's background task (``ConcurrentWidgetMixin``)."""
import functools
import gc
import warnings

from AnyQt.QtCore import QTimer

from Orange.widgets.utils.concurrent import ConcurrentWidgetMixin
from Orange.widgets.utils.owlearnerwidget import OWBaseLearner
from Orange.widgets.widget import Msg, OWWidget

from orangecontrib.relief.compilation import (compile_notices, end_background_with_this_process,
                                              load_notices)
from orangecontrib.relief.widgets.numbers import count

__all__ = ["Cancelled", "progress_callback", "fit_in_background", "announcing_compilation",
           "sentence", "freeze_loaded_objects",
           "BackgroundLearnerWidget", "BackgroundEstimationWidget"]

#: the status bar's text while a background task waits for numba to compile kernels
COMPILING = ("Compiling the numeric kernels for their first use (once; they are cached "
             "for later sessions) ...")
#: the status bar's text while a background task waits for numba to load compiled kernels
#: from the disk cache (seconds at the start of a session, before the first progress)
LOADING = "Loading the compiled numeric kernels ..."


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


def announcing_compilation(task):
    """``task`` (a background task's function, which takes the task's state last) showing
    :data:`COMPILING` in the widget's status bar while numba compiles a kernel the
    computation needs (the first use after installing; the status clears when the task
    ends), and :data:`LOADING` while it loads one from the disk cache (cleared once loaded):
    the progress bar, which moves only after, does not stand still unexplained."""
    @functools.wraps(task)
    def run(*args):
        state = args[-1]

        def loading(_name, started):
            state.set_status(LOADING if started else "")
        with compile_notices(lambda _name: state.set_status(COMPILING)), load_notices(loading):
            return task(*args)
    return run


def freeze_loaded_objects():
    """Exempt the objects that exist now — once per process, when the first of our widget
    classes is defined (its module's imports done, no widget made yet):
    those of the modules loaded by then (numba, scipy, Orange, the canvas; some 300,000) —
    from Python's later full garbage collections (``gc.freeze``). Each full collection
    traverses every tracked object, holding the interpreter lock throughout (in whichever
    thread allocates at that moment): with those objects it held the canvas for 150 ms to a
    second while a first result was shown. The modules' objects live as long as the process
    anyway; the cost is that cyclic garbage existing at this moment is never freed. (Not at
    a widget's creation: the widget would be exempt too, and its data kept after it is
    removed.)"""
    global _frozen
    if not _frozen:
        _frozen = True
        gc.freeze()


#: whether :func:`freeze_loaded_objects` has run in this process
_frozen = False


def fit_in_background(learner, data, state):
    """Fit ``learner`` on ``data`` in a background task; cancelling stops the fit."""
    callback = progress_callback(state)
    return learner(data, progress_callback=lambda fraction, *_: callback(fraction))


class BackgroundLearnerWidget(OWBaseLearner, ConcurrentWidgetMixin, openclass=True):
    """A learner widget that fits in a background task, with a progress bar and a cancel that
    stops the fit (as Orange's Scoring Sheet widget; ``OWBaseLearner`` fits in the GUI thread).
    Subclasses show what the model holds in :meth:`model_changed`."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        freeze_loaded_objects()

    def __init__(self):
        ConcurrentWidgetMixin.__init__(self)
        OWBaseLearner.__init__(self)
        end_background_with_this_process()      # no compile outlives Orange

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
            self.start(announcing_compilation(fit_in_background), self.learner, self.data)
        else:
            self.Outputs.model.send(None)

    def add_bottom_buttons(self):
        # OWBaseLearner's apply is not a gui.deferred method, for which orangewidget warns at
        # every widget's creation (Orange's own learner widgets too)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", r"decorate \w+\.apply with @gui\.deferred",
                                    UserWarning)
            super().add_bottom_buttons()

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
        self._steps = []
        self.shutdown()
        super().onDeleteWidget()


def sentence(text):
    """``text`` (such as an error's message) as a message the widget shows: beginning with a
    capital letter."""
    return text[:1].upper() + text[1:]


class BackgroundEstimationWidget(OWWidget, ConcurrentWidgetMixin, openclass=True):
    """A widget that runs an estimation on its input data in a background task: every change
    cancels the running task and starts a new one (:meth:`restart`); data without a class or
    attributes, an estimation the data do not suit (a ``ValueError``) or a failure become
    messages, never a traceback. Subclasses give the task (:meth:`background_task`) and show
    its result (:meth:`show_result`, also with ``self.result = None``)."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        freeze_loaded_objects()

    class Error(OWWidget.Error):
        no_class = Msg("Data has no target variable.")
        several_targets = Msg("Data has {} target variables; choose one with the Select "
                              "Columns widget.")
        no_attributes = Msg("Data has no attributes.")
        unsuitable = Msg("{}")
        failed = Msg("Estimation failed: {}")

    class Warning(OWWidget.Warning):
        missing_class = Msg("Instances with a missing target value are ignored: {}.")

    def __init__(self):
        OWWidget.__init__(self)
        ConcurrentWidgetMixin.__init__(self)
        end_background_with_this_process()      # no compile outlives Orange
        self.data = None
        self.result = None
        self._new_data = False
        #: the parts of showing a result still to run, each in its own turn of the event loop
        #: (the widget stays invalidated until they have run)
        self._steps = []
        #: True while a result is shown (its outputs are sent once, after the table)
        self.showing = False

    def showing_steps(self):
        """Functions that show a result before its outputs are sent, each in a turn of the
        event loop of its own (while they run, :attr:`showing` is True): by default
        :meth:`show_result` alone."""
        return [self.show_result]

    def later_steps(self):
        """Functions that complete the display of a result after the table and the outputs,
        each called in a later turn of the event loop, so that no single turn holds the canvas
        long (such as drawing a plot of thousands of points)."""
        return []

    def accept_data(self, data):
        """Cancel the running task and keep ``data`` if it suits an estimation (else None,
        with a message)."""
        self._steps = []
        self.cancel()
        self.Error.clear()
        self.Warning.clear()
        self.data = None
        self.result = None
        if data is not None:
            if len(data.domain.class_vars) > 1:
                self.Error.several_targets(len(data.domain.class_vars))
            elif not data.domain.class_var:
                self.Error.no_class()
            elif not data.domain.attributes:
                self.Error.no_attributes()
            else:
                self.data = data

    def background_task(self):
        """(function, *arguments) of the background task for the current data and settings;
        the function also takes the task's state last."""
        raise NotImplementedError

    def show_result(self):
        """Show ``self.result`` (None: nothing or a failure)."""
        raise NotImplementedError

    def restart(self, new_data=False):
        """Cancel the running task, if any, and start one for the current settings. Its
        result is sent at once after ``new_data`` (as Orange's widgets do on new input), else
        when auto-send is on or the user sends it."""
        self._steps = []
        self.cancel()
        self._new_data |= new_data
        self.result = None
        self.Error.unsuitable.clear()
        self.Error.failed.clear()
        self.Warning.clear()
        self.Information.clear()
        if self.data is None:
            self._show_and_send()
            return
        task, *args = self.background_task()
        self.start(announcing_compilation(task), *args)

    def on_partial_result(self, _):
        pass

    def on_done(self, result):
        self.result = result
        self.Warning.missing_class(count(result.n_ignored, "instance"),
                                   shown=result.n_ignored > 0)
        self._show_and_send()

    def on_exception(self, ex):
        if isinstance(ex, ValueError):
            self.Error.unsuitable(sentence(str(ex)))
        else:
            self.Error.failed(f"{type(ex).__name__}: {ex}")
        self._show_and_send()

    def _show_and_send(self):
        """Show the result in steps, one a turn of the event loop: :meth:`showing_steps`
        (the table), the outputs, then :meth:`later_steps`."""
        self._steps = [functools.partial(self._show, step) for step in self.showing_steps()] \
            + [self._send] + list(self.later_steps())
        self._next_step()

    def _show(self, step):
        self.showing = True
        try:
            step()
        finally:
            self.showing = False

    def _send(self):
        if self._new_data:
            self._new_data = False
            self.commit.now()
        else:
            self.commit.deferred()

    def _next_step(self):
        if not self._steps:
            return
        try:
            self._steps.pop(0)()
        finally:
            if self._steps:
                self.setInvalidated(True)
                QTimer.singleShot(0, self._next_step)
            elif self.task is None:
                self.setInvalidated(False)

    def setInvalidated(self, state):
        """Invalidated also while the steps of showing a result remain (the task's end,
        which marks the widget ready, comes after the first)."""
        super().setInvalidated(state or bool(getattr(self, "_steps", None)))

    def onDeleteWidget(self):
        self.shutdown()
        super().onDeleteWidget()
