"""A kernel factory handing its kernel a traversal_steps of the caller's choosing (None or a
tuple) and a plain host function giving a bound method of a tiled view, as cuTile's
test_tiled_view.py does with `make_tv_atomic_kernel(get_tv_method, traversal_steps)`."""
import cuda.tile as ct


def add_method(tv):
    return tv.atomic_store_add


def max_method(tv):
    return tv.atomic_store_max


GETTERS = {"add": add_method, "max": max_method}


def make_strided_update(get_tv_method, traversal_steps):
    @ct.kernel
    def strided_update(x, y, TM: ct.Constant[int], TN: ct.Constant[int]):
        bm = ct.bid(0)
        bn = ct.bid(1)
        tv_x = x.tiled_view((TM, TN), traversal_steps=traversal_steps)
        tv_y = y.tiled_view((TM, TN), traversal_steps=traversal_steps)
        get_tv_method(tv_x)((bm, bn), tv_y.load((bm, bn)))
    return strided_update


def strided_update(x, y, op, steps, tile):
    """x op= the (tile)-shaped windows of y every `steps` elements (steps None: the tiles)."""
    kernel = make_strided_update(GETTERS[op], steps)
    st = tile if steps is None else steps
    grid = (ct.cdiv(x.shape[0], st[0]), ct.cdiv(x.shape[1], st[1]))
    ct.launch(None, grid, kernel, (x, y, tile[0], tile[1]))
