"""Our scorers in Orange's Rank at 12 pt DejaVu Sans: each default scorer's name fits Rank's
fixed-width column without being shortened, in the bold that Rank's header uses for the
columns of its selected rows."""
from AnyQt.QtGui import QFontMetrics
from AnyQt.QtWidgets import QStyle
from Orange.data import Table
from Orange.widgets.data.owrank import OWRank
from Orange.widgets.tests.base import WidgetTest

from fonts import BigFont
from orangecontrib.relief import scoring


class TestRankHeaders(BigFont, WidgetTest):

    def setUp(self):
        self.widget = self.create_widget(OWRank)

    def test_every_scorer_name_fits_ranks_column(self):
        rank = self.widget
        rank.show()
        for i, cls in enumerate(scoring.SCORERS):
            self.send_signal(rank.Inputs.scorer, cls(), i)
        self.send_signal(rank.Inputs.data, Table("heart_disease")[::3])
        self.wait_until_finished(rank, timeout=120000)
        view = rank.ranksView
        header = view.horizontalHeader()
        model = view.model()
        bold = header.font()
        bold.setBold(True)
        metrics = QFontMetrics(bold)
        margin = header.style().pixelMetric(QStyle.PixelMetric.PM_HeaderMargin, None, header)
        names = {cls().name for cls in scoring.SCORERS}
        shown = {}
        for c in range(model.columnCount()):
            text = model.headerData(c, header.orientation())
            if text in names:
                shown[text] = (metrics.horizontalAdvance(text) + 2 * margin,
                               view.columnWidth(c))
        self.assertEqual(set(shown), names)
        too_wide = {text: sizes for text, sizes in shown.items() if sizes[0] > sizes[1]}
        self.assertEqual(too_wide, {})

    def test_names_stand_apart_from_ranks_own_methods(self):
        from Orange.widgets.data import owrank
        own = {meta.shortname for meta in owrank.SCORES}
        ours = [cls().name for cls in scoring.SCORERS]
        self.assertEqual(len(set(ours)), len(ours))
        self.assertEqual(own & set(ours), set())
