"""Bounded max-heaps of (distance, index) pairs: the K nearest candidates of a query, the lowest
index first among equal distances, as the brute-force searches (:mod:`.neighbours`,
:mod:`.sparse`, :mod:`.single_precision`) keep them."""
from numba import njit


@njit(cache=True, inline="always")
def _before(d1, i1, d2, i2):
    """(d1, i1) < (d2, i2): nearer, or as near and of a lower index."""
    return d1 < d2 or (d1 == d2 and i1 < i2)


@njit(cache=True, inline="always")
def _sift_down(dist, idx, root, size):
    """Restore the max-heap (by (distance, index)) below ``root`` in the first ``size``."""
    while True:
        child = 2 * root + 1
        if child >= size:
            return
        if child + 1 < size and _before(dist[child], idx[child], dist[child + 1], idx[child + 1]):
            child += 1
        if not _before(dist[root], idx[root], dist[child], idx[child]):
            return
        dist[root], dist[child] = dist[child], dist[root]
        idx[root], idx[child] = idx[child], idx[root]
        root = child


@njit(cache=True, inline="always")
def _group(mode, candidate_cls, row_cls):
    """The neighbour group of a candidate: its class (mode 0, per-class), 0 = the row's class /
    1 = another (mode 1, pooled), 0 (mode 2, all)."""
    if mode == 0:
        return candidate_cls
    if mode == 1:
        return 0 if candidate_cls == row_cls else 1
    return 0


@njit(cache=True, inline="always")
def _offer(hd, hi, size, K, d, j):
    """Offer candidate j at distance d to a bounded max-heap (by (distance, index)) holding
    ``size`` of at most K; return the new size. Callers offer a candidate to a full heap only
    when it comes before the farthest kept (by (distance, index))."""
    if size < K:                                    # grow the heap: sift the new one up
        pos = size
        hd[pos] = d
        hi[pos] = j
        while pos > 0:
            parent = (pos - 1) // 2
            if not _before(hd[parent], hi[parent], hd[pos], hi[pos]):
                break
            hd[parent], hd[pos] = hd[pos], hd[parent]
            hi[parent], hi[pos] = hi[pos], hi[parent]
            pos = parent
        return size + 1
    hd[0] = d                                       # replace the farthest kept
    hi[0] = j
    _sift_down(hd, hi, 0, K)
    return size


@njit(cache=True, inline="always")
def _offer_tie(td, ti, size, d, j):
    """Offer candidate j at distance d to the tie places ``td``/``ti`` holding ``size``, which
    keep the instances of lowest index among those tied at the farthest distance a search's
    heap of the first K keeps (all at distance d); return how many they hold. They fill in
    the order offered (the searches offer candidates mostly in index order) and become a
    max-heap by (distance, index) once full; :func:`_sort_ties` sorts them."""
    T = td.size
    if size < T:
        td[size] = d
        ti[size] = j
        size += 1
        if size == T:
            for root in range(T // 2 - 1, -1, -1):
                _sift_down(td, ti, root, T)
    elif _before(d, j, td[0], ti[0]):
        td[0] = d
        ti[0] = j
        _sift_down(td, ti, 0, T)
    return size


@njit(cache=True, inline="always")
def _sort_ties(hd, hi, size):
    """Sort ascending by (distance, index) the places of :func:`_offer_tie` holding ``size``:
    a heap when full, else in the order offered (insertion sort: nearly sorted already)."""
    if size == hd.size:
        _heap_sort(hd, hi, size)
        return
    for end in range(1, size):
        d, j = hd[end], hi[end]
        pos = end
        while pos > 0 and _before(d, j, hd[pos - 1], hi[pos - 1]):
            hd[pos] = hd[pos - 1]
            hi[pos] = hi[pos - 1]
            pos -= 1
        hd[pos] = d
        hi[pos] = j


@njit(cache=True, inline="always")
def _heap_sort(hd, hi, size):
    """Sort a heap of ``size`` ascending by (distance, index)."""
    for end in range(size - 1, 0, -1):
        hd[0], hd[end] = hd[end], hd[0]
        hi[0], hi[end] = hi[end], hi[0]
        _sift_down(hd, hi, 0, end)
