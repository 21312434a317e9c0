"""actionbase: libactionbase from Python, through ctypes (docs/library.md).

A thin module over the C API of actionbase.h: open a store, create databases
and tables, write edges in typed batches, read them back (get, scan pages and
iteration, count). Values map as None/bool/int/float/str, and dict/list for
"object" properties. Errors raise actionbase.Error with the C error's code.
The library is found through $ACTIONBASE_LIB, else the linker's search path.
"""

import ctypes
import ctypes.util
import json
import os

__all__ = ["Db", "Error", "INSERT", "UPDATE", "DELETE", "OUT", "IN"]

INSERT, UPDATE, DELETE = 0, 1, 2
OUT, IN = 2, 3
_NULL, _BOOL, _LONG, _DOUBLE, _STRING, _JSON = range(6)
_ERROR_NAMES = ["INVALID", "NOT_FOUND", "CONFLICT", "UNAVAILABLE", "INTERNAL", "EXISTS"]
_OPS = {"eq": 0, "gt": 1, "gte": 2, "lt": 3, "lte": 4, "bt": 5, "in": 6}


def _load():
    path = os.environ.get("ACTIONBASE_LIB") or ctypes.util.find_library("actionbase")
    return ctypes.CDLL(path or "libactionbase.so.0")


_lib = _load()
_glib = ctypes.CDLL(ctypes.util.find_library("glib-2.0") or "libglib-2.0.so.0")


class _U(ctypes.Union):
    _fields_ = [("b", ctypes.c_int), ("l", ctypes.c_int64), ("d", ctypes.c_double),
                ("s", ctypes.c_char_p)]


class _Value(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("u", _U)]


class _GError(ctypes.Structure):
    _fields_ = [("domain", ctypes.c_uint32), ("code", ctypes.c_int), ("message", ctypes.c_char_p)]


class _Pred(ctypes.Structure):
    _fields_ = [("field", ctypes.c_char_p), ("op", ctypes.c_int),
                ("values", ctypes.POINTER(_Value)), ("n_values", ctypes.c_uint),
                ("reserved", ctypes.c_void_p * 2)]


class _Scan(ctypes.Structure):
    _fields_ = [("index", ctypes.c_char_p), ("start", _Value), ("direction", ctypes.c_int),
                ("limit", ctypes.c_uint), ("ranges", ctypes.POINTER(_Pred)),
                ("n_ranges", ctypes.c_uint), ("filters", ctypes.POINTER(_Pred)),
                ("n_filters", ctypes.c_uint), ("resume", ctypes.c_char_p),
                ("reserved", ctypes.c_void_p * 4)]


_P = ctypes.c_void_p
_ERR = ctypes.POINTER(ctypes.POINTER(_GError))
_S = ctypes.c_char_p


def _sig(name, restype, *argtypes):
    f = getattr(_lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_open = _sig("ab_db_open", _P, _S, _P, _ERR)
_close = _sig("ab_db_close", None, _P)
_create_db = _sig("ab_db_create_database", ctypes.c_int, _P, _S, _S, _ERR)
_create_table = _sig("ab_db_create_table_json", ctypes.c_int, _P, _S, _S, _ERR)
_batch_new = _sig("ab_db_batch_new", _P)
_batch_free = _sig("ab_db_batch_free", None, _P)
_add_edge = _sig("ab_db_batch_add_edge", None, _P, ctypes.c_int, ctypes.c_int64, _Value, _Value)
_set = _sig("ab_db_batch_set", None, _P, _S, _Value)
_mutate = _sig("ab_db_mutate", _P, _P, _S, _S, _P, _P, _ERR)
_res_len = _sig("ab_db_results_len", ctypes.c_uint, _P)
_res_status = _sig("ab_db_results_status", ctypes.c_int, _P, ctypes.c_uint)
_status_name = _sig("ab_db_status_name", _S, ctypes.c_int)
_res_source = _sig("ab_db_results_source", _Value, _P, ctypes.c_uint)
_res_target = _sig("ab_db_results_target", _Value, _P, ctypes.c_uint)
_res_free = _sig("ab_db_results_free", None, _P)
_get = _sig("ab_db_get", _P, _P, _S, _S, _Value, _Value, _ERR)
_scan = _sig("ab_db_scan", _P, _P, _S, _S, ctypes.POINTER(_Scan), _ERR)
_count = _sig("ab_db_count", ctypes.c_int, _P, _S, _S, _Value, ctypes.c_int,
              ctypes.POINTER(ctypes.c_int64), _ERR)
_e_len = _sig("ab_db_edges_len", ctypes.c_uint, _P)
_e_version = _sig("ab_db_edges_version", ctypes.c_int64, _P, ctypes.c_uint)
_e_source = _sig("ab_db_edges_source", _Value, _P, ctypes.c_uint)
_e_target = _sig("ab_db_edges_target", _Value, _P, ctypes.c_uint)
_e_nprops = _sig("ab_db_edges_n_properties", ctypes.c_uint, _P, ctypes.c_uint)
_e_pname = _sig("ab_db_edges_property_name", _S, _P, ctypes.c_uint, ctypes.c_uint)
_e_pat = _sig("ab_db_edges_property_at", _Value, _P, ctypes.c_uint, ctypes.c_uint)
_e_next = _sig("ab_db_edges_next", _S, _P)
_e_free = _sig("ab_db_edges_free", None, _P)
_version = _sig("ab_db_version", _S)
_glib.g_error_free.argtypes = [ctypes.POINTER(_GError)]


class Error(Exception):
    """A failed call: .code is INVALID, NOT_FOUND, CONFLICT, UNAVAILABLE, INTERNAL or EXISTS."""

    def __init__(self, code, message):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


def version():
    return _version().decode()


def _raise(err):
    e = err.contents
    code = _ERROR_NAMES[e.code] if 0 <= e.code < len(_ERROR_NAMES) else str(e.code)
    message = e.message.decode()
    _glib.g_error_free(err)
    raise Error(code, message)


def _call(fn, *args):
    err = ctypes.POINTER(_GError)()
    r = fn(*args, ctypes.byref(err))
    if not r:
        _raise(err)
    return r


def _b(s):
    return s.encode() if isinstance(s, str) else s


class _Keep:
    """Holds the bytes objects the C values point into for one call."""

    def __init__(self):
        self.refs = []

    def value(self, x):
        v = _Value()
        if x is None:
            v.type = _NULL
        elif isinstance(x, bool):
            v.type, v.u.b = _BOOL, int(x)
        elif isinstance(x, int):
            v.type, v.u.l = _LONG, x
        elif isinstance(x, float):
            v.type, v.u.d = _DOUBLE, x
        elif isinstance(x, str):
            raw = x.encode()
            self.refs.append(raw)
            v.type, v.u.s = _STRING, raw
        else:
            raw = json.dumps(x).encode()
            self.refs.append(raw)
            v.type, v.u.s = _JSON, raw
        return v


def _py(v):
    if v.type == _BOOL:
        return bool(v.u.b)
    if v.type == _LONG:
        return v.u.l
    if v.type == _DOUBLE:
        return v.u.d
    if v.type == _STRING:
        return v.u.s.decode()
    if v.type == _JSON:
        return json.loads(v.u.s.decode())
    return None


def _edges(ptr):
    try:
        out = []
        for i in range(_e_len(ptr)):
            props = {_e_pname(ptr, i, k).decode(): _py(_e_pat(ptr, i, k))
                     for k in range(_e_nprops(ptr, i))}
            out.append({"version": _e_version(ptr, i), "source": _py(_e_source(ptr, i)),
                        "target": _py(_e_target(ptr, i)), "properties": props})
        nxt = _e_next(ptr)
        return out, (nxt.decode() if nxt else None)
    finally:
        _e_free(ptr)


class Db:
    """An open store ("memory:", "lmdb:/dir", "hbase://host:port/ns"); close() or use with."""

    def __init__(self, uri):
        self._db = _call(_open, _b(uri), None)

    def close(self):
        if self._db:
            _close(self._db)
            self._db = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def create_database(self, name, comment=""):
        _call(_create_db, self._db, _b(name), _b(comment))

    def create_table(self, database, table):
        """table: the v3 create-table body, as a dict or JSON text."""
        text = table if isinstance(table, str) else json.dumps(table)
        _call(_create_table, self._db, _b(database), _b(text))

    def mutate(self, database, table, edges):
        """edges: [{"type": INSERT|UPDATE|DELETE (default INSERT), "version", "source",
        "target", "properties": {...}}]; returns [(source, target, "CREATED"...)]."""
        keep = _Keep()
        batch = _batch_new()
        try:
            for e in edges:
                _add_edge(batch, e.get("type", INSERT), e["version"], keep.value(e["source"]),
                          keep.value(e["target"]))
                for name, value in (e.get("properties") or {}).items():
                    _set(batch, _b(name), keep.value(value))
            res = _call(_mutate, self._db, _b(database), _b(table), batch, None)
        finally:
            _batch_free(batch)
        try:
            return [(_py(_res_source(res, i)), _py(_res_target(res, i)),
                     _status_name(_res_status(res, i)).decode()) for i in range(_res_len(res))]
        finally:
            _res_free(res)

    def get(self, database, table, source, target):
        """The edge as a dict, or None."""
        keep = _Keep()
        found, _ = _edges(_call(_get, self._db, _b(database), _b(table), keep.value(source),
                                keep.value(target)))
        return found[0] if found else None

    def scan(self, database, table, index, start, direction=OUT, limit=25, ranges=(),
             resume=None):
        """One page: (edges, token of the next page or None). ranges: [(field, op, value...)]
        with op eq/gt/gte/lt/lte/bt."""
        keep = _Keep()
        preds = (_Pred * max(len(ranges), 1))()
        for i, (field, op, *values) in enumerate(ranges):
            vals = (_Value * len(values))(*[keep.value(v) for v in values])
            keep.refs.append(vals)
            raw = _b(field)
            keep.refs.append(raw)
            preds[i] = _Pred(raw, _OPS[op], vals, len(values))
        s = _Scan(index=_b(index), start=keep.value(start), direction=direction, limit=limit,
                  ranges=preds, n_ranges=len(ranges), resume=_b(resume) if resume else None)
        return _edges(_call(_scan, self._db, _b(database), _b(table), ctypes.byref(s)))

    def scan_all(self, database, table, index, start, direction=OUT, page=100, ranges=()):
        """Every edge of the window, a page at a time."""
        token = None
        while True:
            edges, token = self.scan(database, table, index, start, direction, page, ranges,
                                     token)
            yield from edges
            if token is None:
                return

    def count(self, database, table, node, direction=OUT):
        keep = _Keep()
        n = ctypes.c_int64()
        _call(_count, self._db, _b(database), _b(table), keep.value(node), direction,
              ctypes.byref(n))
        return n.value
