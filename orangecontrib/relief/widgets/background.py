"""Running the engine in a widget's background task (``ConcurrentWidgetMixin``)."""

__all__ = ["Cancelled", "progress_callback"]


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
