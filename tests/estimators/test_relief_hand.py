"""Relief-family estimates of tiny tables, computed by hand (the arithmetic is in the comments).

Notation: Ii = instance i; diff as eqs. 1-2 of Robnik-Šikonja & Kononenko 1999;
numeric diffs are |dx| / range. Every table is built so that no neighbour set is ambiguous.
Each hand value is checked against the engine and against the plain reference
(reference_relief.py), which validates the reference itself.
"""
import math

import numpy as np
import pytest

from orangecontrib.relief.estimators import encode
from orangecontrib.relief.estimators.relieff import Relief, ReliefF
from orangecontrib.relief.estimators.rrelieff import RReliefF

from reference_relief import ReferenceData, relief, relieff, rrelieff

TOL = 1e-12
NAN = float("nan")
# exp-rank weights of two neighbours with sigma = 1 (eqs. 13-14): rank 0 -> e^0 = 1,
# rank 1 -> e^-1; normalised: P = 1 / (1 + e^-1) = e / (1 + e), Q = 1 / (1 + e)
P = math.e / (1 + math.e)
Q = 1 / (1 + math.e)


# --- Table 1: two classes, A1 numeric (range 10), A2 binary ------------------------------------
#        A1  A2  class
#   I0    0   0   0
#   I1    2   0   0
#   I2    3   1   0
#   I3    7   1   1
#   I4   10   0   1
#   I5    8   1   1
# distances d = |dA1|/10 + [A2 differs]:
#   0-1 .2   0-2 1.3  0-3 1.7  0-4 1.0  0-5 1.8
#   1-2 1.1  1-3 1.5  1-4 .8   1-5 1.6
#   2-3 .4   2-4 1.7  2-5 .5
#   3-4 1.3  3-5 .1   4-5 1.2
TABLE1 = ([[0, 0], [2, 0], [3, 1], [7, 1], [10, 0], [8, 1]], [0, 0, 0, 1, 1, 1], [False, True],
          [0, 2], 2)

# Relief (k = 1): nearest hit H / nearest miss M and their diffs (A1, A2)
#   I0: H=I1 (.2, 0)  M=I4 (1.0, 0)      I3: H=I5 (.1, 0)  M=I2 (.4, 0)
#   I1: H=I0 (.2, 0)  M=I4 (.8, 0)       I4: H=I5 (.2, 1)  M=I1 (.8, 0)
#   I2: H=I1 (.1, 1)  M=I3 (.4, 0)       I5: H=I3 (.1, 0)  M=I2 (.5, 0)
# W[A1] = (misses 3.9 - hits .9) / 6 = .5;  W[A2] = (0 - 2) / 6 = -1/3
RELIEF_TABLE1 = [0.5, -1 / 3]

# ReliefF k = 2 (two classes: the miss factor P(C)/(1-P(class(R))) = 1); hits = the other two
# of the class; mean diffs (A1, A2) of hits | misses:
#   I0: I1,I2 (.25, .5) | I4,I3 (.85, .5)     I3: I5,I4 (.2, .5)  | I2,I1 (.45, .5)
#   I1: I0,I2 (.15, .5) | I4,I3 (.65, .5)     I4: I5,I3 (.25, 1)  | I1,I0 (.9, 0)
#   I2: I1,I0 (.2, 1)   | I3,I5 (.45, 0)      I5: I3,I4 (.15, .5) | I2,I1 (.55, .5)
# W[A1] = (3.85 - 1.2) / 6 = 2.65 / 6;  W[A2] = (2 - 4) / 6 = -1/3
RELIEFF2_TABLE1 = [2.65 / 6, -1 / 3]

# ReliefF k = 2, exp-rank sigma = 1: the nearer neighbour of each class weighs P, the other Q
#   A1 misses: P(1.0+.8+.4+.4+.8+.5) + Q(.7+.5+.5+.5+1.0+.6) = 3.9P + 3.8Q
#   A1 hits:   P(.2+.2+.1+.1+.2+.1) + Q(.3+.1+.3+.3+.3+.2) = .9P + 1.5Q
#   A2 misses: Q(1+1+0+1+0+1) = 4Q;  A2 hits: Q + Q + 1 + Q + 1 + Q = 2 + 4Q
# W[A1] = (3P + 2.3Q) / 6;  W[A2] = -2/6
EXPRANK_TABLE1 = [(3 * P + 2.3 * Q) / 6, -1 / 3]


# --- Table 2: three classes with priors 1/2, 1/3, 1/6; A1 (range 10), A2 (range 4) numeric ----
#        A1  A2  class
#   I0    0   0   0
#   I1    1   4   0
#   I2    2   1   0
#   I3    5   3   1
#   I4    6   0   1
#   I5   10   2   2
# distances |dA1|/10 + |dA2|/4:
#   0-1 1.1  0-2 .45  0-3 1.25  0-4 .6   0-5 1.5
#   1-2 .85  1-3 .65  1-4 1.5   1-5 1.4
#   2-3 .8   2-4 .65  2-5 1.05
#   3-4 .85  3-5 .75  4-5 .9
TABLE2 = ([[0, 0], [1, 4], [2, 1], [5, 3], [6, 0], [10, 2]], [0, 0, 0, 1, 1, 2],
          [False, False], [0, 0], 3)
# ReliefF k = 1; miss factors P(C)/(1 - P(class(R))):
#   R in class 0: class 1 (1/3)/(1/2) = 2/3, class 2 (1/6)/(1/2) = 1/3
#   R in class 1: class 0 (1/2)/(2/3) = 3/4, class 2 (1/6)/(2/3) = 1/4
#   R in class 2: class 0 (1/2)/(5/6) = 3/5, class 1 (1/3)/(5/6) = 2/5
# per R: hit, misses (diffs A1, A2) -> contribution to A1 | A2
#   I0: H=I2 (.2,.25); M1=I4 (.6,0); M2=I5 (1,.5)
#       A1 -.2 + 2/3*.6 + 1/3*1 = .533333 | A2 -.25 + 0 + 1/3*.5 = -.083333
#   I1: H=I2 (.1,.75); M1=I3 (.4,.25); M2=I5 (.9,.5)
#       A1 -.1 + 2/3*.4 + 1/3*.9 = .466667 | A2 -.75 + 2/3*.25 + 1/3*.5 = -.416667
#   I2: H=I0 (.2,.25); M1=I4 (.4,.25); M2=I5 (.8,.25)
#       A1 -.2 + 2/3*.4 + 1/3*.8 = .333333 | A2 -.25 + 2/3*.25 + 1/3*.25 = 0
#   I3: H=I4 (.1,.75); M0=I1 (.4,.25); M2=I5 (.5,.25)
#       A1 -.1 + 3/4*.4 + 1/4*.5 = .325 | A2 -.75 + 3/4*.25 + 1/4*.25 = -.5
#   I4: H=I3 (.1,.75); M0=I0 (.6,0); M2=I5 (.4,.5)
#       A1 -.1 + 3/4*.6 + 1/4*.4 = .45 | A2 -.75 + 0 + 1/4*.5 = -.625
#   I5: no hit (alone in its class: contributes nothing); M0=I2 (.8,.25); M1=I3 (.5,.25)
#       A1 3/5*.8 + 2/5*.5 = .68 | A2 3/5*.25 + 2/5*.25 = .25
# W[A1] = (4/3 + .325 + .45 + .68) / 6;  W[A2] = -1.375 / 6
RELIEFF1_TABLE2 = [(4 / 3 + 0.325 + 0.45 + 0.68) / 6, -1.375 / 6]


# --- Table 3: exp-rank ties. A1, A2 binary; I3 and I4 are duplicates ----------------------------
#        A1 A2 class
#   I0    0  0  0
#   I1    1  0  0
#   I2    0  1  0
#   I3    1  1  1
#   I4    1  1  1
TABLE3 = ([[0, 0], [1, 0], [0, 1], [1, 1], [1, 1]], [0, 0, 0, 1, 1], [True, True], [2, 2], 2)
# ReliefF k = 2, exp-rank sigma = 1; neighbours at equal distance share the first one's weight:
#   I0: hits I1, I2 both at d=1 -> 1/2, 1/2: (A1, A2) = (.5, .5); misses I3, I4 at 2: (1, 1)
#   I1: hits I0 (d=1, P), I2 (d=2, Q): A1 P+Q = 1, A2 Q; misses I3, I4 at d=1: (0, 1)
#   I2: hits I0 (P), I1 (Q): A1 Q, A2 1;  misses I3, I4: (1, 0)
#   I3: one hit (class size 2): I4 at d=0: (0, 0); misses I1, I2 tied at d=1 (I0 at 2):
#       (.5, .5)
#   I4: as I3
# W[A1] = (misses 1+0+1+.5+.5 - hits .5+1+Q+0+0) / 5 = (1.5 - Q) / 5; W[A2] the same
EXPRANK_TIES_TABLE3 = [(1.5 - Q) / 5, (1.5 - Q) / 5]


# --- Table 4: missing values. A0 numeric (range 10), A1 discrete with 3 values ------------------
#        A0   A1  class
#   I0    0    0   0
#   I1    1    ?   0
#   I2    3    1   0
#   I3    6.5  2   1
#   I4   10    2   1
#   I5    8.5  ?   1
# A0 diffs: 0-1 .1  0-2 .3  0-3 .65  0-4 1  0-5 .85  1-2 .2  1-3 .55  1-4 .9  1-5 .75
#           2-3 .35 2-4 .7  2-5 .55  3-4 .35 3-5 .2  4-5 .15
# A1 known diffs: 0-2 1, 0-3 1, 0-4 1, 2-3 1, 2-4 1, 3-4 0
# P(A1 | class 0) = (1/2, 1/2, 0), P(A1 | class 1) = (0, 0, 1) (relative frequencies)
TABLE4 = ([[0, 0], [1, NAN], [3, 1], [6.5, 2], [10, 2], [8.5, NAN]], [0, 0, 0, 1, 1, 1],
          [False, True], [0, 3], 2)

# RELIEF-D, both missing uses both classes. diffs with a missing value (kononenko-relieff-1994):
#   I1 vs value v: 1 - P(v | class 0): v=0 .5, v=1 .5, v=2 1
#   I5 vs value v: 1 - P(v | class 1): v=0 1,  v=1 1,  v=2 0
#   I1 vs I5: 1 - sum_v P(v|0) P(v|1) = 1 - 0 = 1
# distances: 0-1 .6  0-2 1.3  0-3 1.65  0-4 2  0-5 1.85  1-2 .7  1-3 1.55  1-4 1.9  1-5 1.75
#            2-3 1.35  2-4 1.7  2-5 1.55  3-4 .35  3-5 .2  4-5 .15
# k = 1, (A0, A1) diffs of hit | miss:
#   I0: I1 (.1, .5) | I3 (.65, 1)     I3: I5 (.2, 0)  | I2 (.35, 1)
#   I1: I0 (.1, .5) | I3 (.55, 1)     I4: I5 (.15, 0) | I2 (.7, 1)
#   I2: I1 (.2, .5) | I3 (.35, 1)     I5: I4 (.15, 0) | I2 (.55, 1)
# W[A0] = (3.15 - .9) / 6 = .375;  W[A1] = (6 - 1.5) / 6 = .75
D_BOTH_TABLE4 = [0.375, 0.75]

# both_missing="current": both missing -> 1 - sum_v P(v | c)^2 with c the current instance's class
#   from I1 (class 0): 1 - (1/4 + 1/4) = .5, d(1 -> 5) = .75 + .5 = 1.25 < 1.55: I1's miss is I5
#   from I5 (class 1): 1 - 1 = 0,          d(5 -> 1) = .75 + 0 = .75 < 1.55: I5's miss is I1
#   I1: miss I5 (.75, .5);  I5: miss I1 (.75, 0); the rest as above
# W[A0] = (.65+.75+.35+.35+.7+.75 - .9) / 6 = 2.65 / 6;  W[A1] = (1+.5+1+1+1+0 - 1.5) / 6 = .5
D_CURRENT_TABLE4 = [2.65 / 6, 0.5]

# Laplace: P(v | c) = (n_vc + 1) / (n_c + 3): class 0 (2/5, 2/5, 1/5), class 1 (1/5, 1/5, 3/5)
#   I1 vs 0: .6, vs 1: .6, vs 2: .8;  I5 vs 0: .8, vs 1: .8, vs 2: .4
#   I1 vs I5: 1 - (2/5*1/5 + 2/5*1/5 + 1/5*3/5) = 18/25 = .72
# distances: 0-1 .7  0-5 1.65  1-2 .8  1-3 1.35  1-4 1.7  1-5 1.47  2-5 1.35  3-5 .6  4-5 .55,
#            others as above. k = 2: hits = the two others of the class; the two nearest misses:
#   I0: I3 1.65, I5 1.65 (I4 2)   I1: I3, I5 (I4 1.7)   I2: I3, I5 (I4 1.7)
#   I3: I1 1.35, I2 1.35 (I0)     I4: I1, I2 (I0 2)     I5: I2, I1 (I0 1.65)
# mean (A0, A1) diffs hits | misses:
#   I0: (.2, .8)   | (.75, .9)     I3: (.275, .2) | (.45, .9)
#   I1: (.15, .6)  | (.65, .76)    I4: (.25, .2)  | (.8, .9)
#   I2: (.25, .8)  | (.45, .9)     I5: (.175, .4) | (.65, .76)
# W[A0] = (3.75 - 1.3) / 6 = 2.45 / 6;  W[A1] = (5.12 - 3) / 6 = 2.12 / 6
D_LAPLACE_K2_TABLE4 = [2.45 / 6, 2.12 / 6]

# RELIEF-B: a missing value diffs 1 - 1/3 = 2/3.
# distances: 0-1 .7667  0-2 1.3  0-3 1.65  0-4 2  0-5 1.5167  1-2 .8667  1-3 1.2167  1-4 1.5667
#            1-5 1.4167  2-3 1.35  2-4 1.7  2-5 1.2167  3-4 .35  3-5 .8667  4-5 .8167
# k = 1, (A0, A1) hit | miss:
#   I0: I1 (.1, 2/3) | I5 (.85, 2/3)     I3: I4 (.35, 0)   | I1 (.55, 2/3)
#   I1: I0 (.1, 2/3) | I3 (.55, 2/3)     I4: I3 (.35, 0)   | I1 (.9, 2/3)
#   I2: I1 (.2, 2/3) | I5 (.55, 2/3)     I5: I4 (.15, 2/3) | I2 (.55, 2/3)
# W[A0] = (3.95 - 1.25) / 6 = .45;  W[A1] = (6 * 2/3 - 4 * 2/3) / 6 = 2/9
B_TABLE4 = [0.45, 2 / 9]

# RELIEF-C, k = 2: distances as RELIEF-B; misses: I0 {I5, I3}, I1 {I3, I5}, I2 {I5, I3},
# I3 {I1, I2}, I4 {I1, I2}, I5 {I2, I1}; hits the other two of the class. A0 as with Laplace
# (same neighbour sets): 2.45 / 6.
# A1: pairs with a missing value are left out, and the hits' and the misses' sums renormalised
# by the share of their influence that is known (relieff.py's docstring):
#   known hit pairs (weight 1/2 each): I0-I2 1, I2-I0 1, I3-I4 0, I4-I3 0 -> sum 1 of weight 2
#   known miss pairs: I0-I3 1, I2-I3 1, I3-I2 1, I4-I2 1 -> sum 2 of weight 2
#   hits: 1 / (2/6) / 6 = .5, misses: 2 / (2/6) / 6 = 1 -> W[A1] = 1 - .5 = .5
#   (RELIEF-B with k = 2 would give (4.6667 - 3.6667) / 6 = 1/6)
C_K2_TABLE4 = [2.45 / 6, 0.5]


# --- Table 7: a numeric attribute with a missing value (RELIEF-D through equal-width bins) ------
#        A0  class      6 instances < 25: max(2, 6 // 5) = 2 bins of [0, 10]: [0, 5), [5, 10]
#   I0    0   0         P(bin | class 0) = (1, 0)      (I0, I1 in bin 0)
#   I1    4   0         P(bin | class 1) = (1/3, 2/3)  (I5 in bin 0; I3, I4 in bin 1)
#   I2    ?   0
#   I3    6   1
#   I4   10   1
#   I5    3   1
# k = 10 >= every class: hits are the other two of the class, misses all three of the other
# (distances do not matter). diff with I2: 1 - P(bin of the other | class 0); no ramp.
#   I0: hits I1 .4, I2 1-P(0|0)=0 -> .2       misses I3 .6, I4 1, I5 .3 -> 1.9/3
#   I1: hits I0 .4, I2 0 -> .2                misses .2, .6, .1 -> .9/3
#   I2: hits I0 0, I1 0 -> 0                  misses I3 1-P(1|0)=1, I4 1, I5 1-P(0|0)=0 -> 2/3
#   I3: hits I4 .4, I5 .3 -> .35              misses I0 .6, I1 .2, I2 1-P(1|0)=1 -> 1.8/3
#   I4: hits I3 .4, I5 .7 -> .55              misses I0 1, I1 .6, I2 1 -> 2.6/3
#   I5: hits I3 .3, I4 .7 -> .5               misses I0 .3, I1 .1, I2 1-P(0|0)=0 -> .4/3
# W = (9.6/3 - 1.8) / 6 = 1.4 / 6
TABLE7 = ([[0], [4], [NAN], [6], [10], [3]], [0, 0, 0, 1, 1, 1], [False], [0], 2)
D_NUMERIC_TABLE7 = [1.4 / 6]


# --- Table 5: regression. A0 (range 10), A1 (range 4) numeric, target range 8 ------------------
#        A0 A1  y
#   I0    0  0  0
#   I1    1  3  1
#   I2    3  1  2
#   I3    6  4  4
#   I4   10  2  8
# distances: 0-1 .85  0-2 .55  0-3 1.6  0-4 1.5  1-2 .7  1-3 .75  1-4 1.15  2-3 1.05  2-4 .95
#            3-4 .9
# k = 2 nearest (in order): I0: I2, I1; I1: I2, I3; I2: I0, I1; I3: I1, I4; I4: I3, I2
# pairs (diff tau, diff A0, diff A1):
#   I0-I2 (.25,.3,.25)  I0-I1 (.125,.1,.75)  I1-I2 (.125,.2,.5)  I1-I3 (.375,.5,.25)
#   I2-I0 (.25,.3,.25)  I2-I1 (.125,.2,.5)   I3-I1 (.375,.5,.25) I3-I4 (.5,.4,.5)
#   I4-I3 (.5,.4,.5)    I4-I2 (.75,.7,.25)
TABLE5 = ([[0, 0], [1, 3], [3, 1], [6, 4], [10, 2]], [0, 1, 2, 4, 8], [False, False], [0, 0], 0)


def rrelieff_w(n_dc, n_da, n_dcda, m=5):
    # Fig. 4, line 15
    return n_dcda / n_dc - (n_da - n_dcda) / (m - n_dc)


# equal weights 1/2: N_dC = 3.375/2, N_dA0 = 3.6/2, N_dC&dA0 = 1.5125/2,
#                    N_dA1 = 4/2, N_dC&dA1 = 1.21875/2
RRELIEFF_EQUAL_TABLE5 = [rrelieff_w(1.6875, 1.8, 0.75625), rrelieff_w(1.6875, 2.0, 0.609375)]
# exp-rank sigma = 1: nearer neighbour P, other Q:
#   N_dC = 1.5P + 1.875Q; N_dA0 = 1.7P + 1.9Q; N_dC&dA0 = .5625P + .95Q;
#   N_dA1 = 1.75P + 2.25Q; N_dC&dA1 = .53125P + .6875Q
RRELIEFF_EXPRANK_TABLE5 = [
    rrelieff_w(1.5 * P + 1.875 * Q, 1.7 * P + 1.9 * Q, 0.5625 * P + 0.95 * Q),
    rrelieff_w(1.5 * P + 1.875 * Q, 1.75 * P + 2.25 * Q, 0.53125 * P + 0.6875 * Q)]


def encoded(table):
    X, y, discrete, n_values, n_classes = table
    return encode(np.array(X, dtype=float), np.array(y, dtype=float), discrete=discrete,
                  n_values=n_values, n_classes=n_classes or None)


def reference_data(table, **options):
    X, y, discrete, n_values, n_classes = table
    return ReferenceData(X, y, discrete, n_values, n_classes, **options)


CASES = {
    # name: (table, engine, reference, expected)
    "relief": (TABLE1, lambda: Relief(), lambda t: relief(reference_data(t)), RELIEF_TABLE1),
    "relieff_k1_equals_relief": (TABLE1, lambda: ReliefF(k=1),
                                 lambda t: relieff(reference_data(t), 1), RELIEF_TABLE1),
    "relieff_k2": (TABLE1, lambda: ReliefF(k=2), lambda t: relieff(reference_data(t), 2),
                   RELIEFF2_TABLE1),
    "relieff_k2_exp_rank": (
        TABLE1, lambda: ReliefF(k=2, weighting="exp-rank", sigma=1.0),
        lambda t: relieff(reference_data(t), 2, weighting="exp-rank", sigma=1.0),
        EXPRANK_TABLE1),
    "relieff_k1_three_classes_prior_weighted": (
        TABLE2, lambda: ReliefF(k=1), lambda t: relieff(reference_data(t), 1),
        RELIEFF1_TABLE2),
    "relieff_exp_rank_ties_share_weight": (
        TABLE3, lambda: ReliefF(k=2, weighting="exp-rank", sigma=1.0),
        lambda t: relieff(reference_data(t), 2, weighting="exp-rank", sigma=1.0),
        EXPRANK_TIES_TABLE3),
    "missing_D_both": (TABLE4, lambda: ReliefF(k=1), lambda t: relieff(reference_data(t), 1),
                       D_BOTH_TABLE4),
    "missing_D_current": (
        TABLE4, lambda: ReliefF(k=1, both_missing="current"),
        lambda t: relieff(reference_data(t, both_missing="current"), 1), D_CURRENT_TABLE4),
    "missing_D_laplace_k2": (
        TABLE4, lambda: ReliefF(k=2, laplace=True),
        lambda t: relieff(reference_data(t, laplace=True), 2), D_LAPLACE_K2_TABLE4),
    "missing_B": (TABLE4, lambda: ReliefF(k=1, missing="B"),
                  lambda t: relieff(reference_data(t, missing="B"), 1), B_TABLE4),
    "missing_C_k2": (TABLE4, lambda: ReliefF(k=2, missing="C"),
                     lambda t: relieff(reference_data(t, missing="C"), 2), C_K2_TABLE4),
    "missing_D_numeric_bins": (TABLE7, lambda: ReliefF(k=10),
                               lambda t: relieff(reference_data(t), 10), D_NUMERIC_TABLE7),
    "rrelieff_equal": (TABLE5, lambda: RReliefF(k=2, weighting="equal"),
                       lambda t: rrelieff(reference_data(t), 2, weighting="equal"),
                       RRELIEFF_EQUAL_TABLE5),
    "rrelieff_exp_rank": (TABLE5, lambda: RReliefF(k=2, weighting="exp-rank", sigma=1.0),
                          lambda t: rrelieff(reference_data(t), 2, sigma=1.0),
                          RRELIEFF_EXPRANK_TABLE5),
}


@pytest.mark.parametrize("name", list(CASES))
def test_engine_gives_hand_computed_estimate(name):
    table, engine, _, expected = CASES[name]
    np.testing.assert_allclose(engine()(encoded(table)), expected, rtol=0, atol=TOL)


@pytest.mark.parametrize("name", list(CASES))
def test_reference_gives_hand_computed_estimate(name):
    table, _, reference, expected = CASES[name]
    np.testing.assert_allclose(reference(table), expected, rtol=0, atol=TOL)


# --- ramp diff (CORElearn's default thresholds .04 and .1 of the range) ---------
# Table 6, A1 numeric with range 100, A2 binary, two classes:
#        A1   A2 class
#   I0    0   0   0
#   I1    3   1   0
#   I2   20   0   0
#   I3   10   1   1
#   I4  100   0   1
#   I5   97   1   1
# ramp(d) = 0 if d <= .04, 1 if d >= .1, (d - .04) / .06 between; d = |dA1| / 100:
#   0-1 .03 -> 0        0-2 .2 -> 1   0-3 .1 -> 1   0-4 1 -> 1   0-5 .97 -> 1
#   1-2 .17 -> 1        1-3 .07 -> .5 1-4 -> 1      1-5 -> 1
#   2-3 .1 -> 1         2-4 -> 1      2-5 -> 1
#   3-4 .9 -> 1         3-5 .87 -> 1  4-5 .03 -> 0
# distances (ramp + [A2 differs]):
#   0-1 1  0-2 1  0-3 2  0-4 1  0-5 2  1-2 2  1-3 .5  1-4 2  1-5 1  2-3 2  2-4 1  2-5 2
#   3-4 2  3-5 1  4-5 1
# k = 2 would be ambiguous (I0's misses I3 and I5 tie at 2), so k = 3: every neighbour set is
# all the other instances of a class (hits capped at 2):
#   hits A1 ramp: class 0 pairs 0-1 0, 0-2 1, 1-2 1; class 1 pairs 3-4 1, 3-5 1, 4-5 0;
#   each R averages its 2 hits: I0 (0+1)/2, I1 (0+1)/2, I2 (1+1)/2, I3 1, I4 (1+0)/2,
#   I5 (1+0)/2 -> sum .5+.5+1+1+.5+.5 = 4
#   misses A1 ramp: each R averages its 3 misses:
#     I0: (1+1+1)/3 = 1; I1: (.5+1+1)/3 = 2.5/3; I2: (1+1+1)/3 = 1;
#     I3: (1+.5+1)/3 = 2.5/3; I4: 1; I5: 1 -> sum 4 + 5/3
#   W[A1] = (4 + 5/3 - 4) / 6 = 5/18
#   A2 hits: class 0 pairs 0-1 1, 0-2 0, 1-2 1; class 1 pairs 3-4 1, 3-5 0, 4-5 1:
#     I0 .5, I1 1, I2 .5, I3 .5, I4 1, I5 .5 -> 4
#   A2 misses: I0 (1+0+1)/3, I1 (0+1+0)/3, I2 (1+0+1)/3, I3 (1+0+1)/3, I4 (0+1+0)/3,
#     I5 (1+0+1)/3 -> (2+1+2+2+1+2)/3 = 10/3
#   W[A2] = (10/3 - 4) / 6 = -1/9
TABLE6 = ([[0, 0], [3, 1], [20, 0], [10, 1], [100, 0], [97, 1]], [0, 0, 0, 1, 1, 1],
          [False, True], [0, 2], 2)
RAMP_K3_TABLE6 = [5 / 18, -1 / 9]


def test_ramp_diff_hand_computed():
    est = ReliefF(k=3, numeric_diff="ramp", t_equal=0.04, t_different=0.1)
    np.testing.assert_allclose(est(encoded(TABLE6)), RAMP_K3_TABLE6, rtol=0, atol=TOL)
    ref = reference_data(TABLE6, numeric_diff="ramp")
    np.testing.assert_allclose(relieff(ref, 3), RAMP_K3_TABLE6, rtol=0, atol=TOL)
    # the linear diff differs: the two .03 pairs and the .07 pair are no longer 0 and .5
    assert not np.isclose(ReliefF(k=3)(encoded(TABLE6))[0], RAMP_K3_TABLE6[0])


def test_relief_c_without_a_known_miss_diff_is_nan():
    # Table 4, RELIEF-C, k = 1 (neighbours as RELIEF-B above): A1's misses are I5, I3, I5, I1,
    # I1, I2 for I0..I5 and each pair has a missing value (I1 or I5), so P(diff | miss) cannot be
    # estimated: NaN. A0 has no missing value: RELIEF-B's .45.
    got = ReliefF(k=1, missing="C")(encoded(TABLE4))
    assert np.isnan(got[1])
    assert got[0] == pytest.approx(0.45, abs=TOL)
    ref = relieff(reference_data(TABLE4, missing="C"), 1)
    assert np.isnan(ref[1]) and ref[0] == pytest.approx(0.45, abs=TOL)


def test_all_missing_attribute_gets_nan_and_leaves_the_others_alone():
    # a third column that is entirely missing: NaN estimate (diffs.py docstring), and it does not
    # change distances, so A1 and A2 keep Table 1's Relief values
    X, y, discrete, n_values, n_classes = TABLE1
    X3 = [row + [NAN] for row in X]
    data = encode(np.array(X3, dtype=float), np.array(y, dtype=float),
                  discrete=discrete + [False], n_values=n_values + [0], n_classes=2)
    got = Relief()(data)
    assert np.isnan(got[2])
    np.testing.assert_allclose(got[:2], RELIEF_TABLE1, rtol=0, atol=TOL)
