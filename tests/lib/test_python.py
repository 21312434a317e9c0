"""The Python module (src/lib/python/actionbase.py) against the built library:
tables, typed values both ways, statuses, get, scan pages with a range,
iteration over pages, counts and errors, on a fresh LMDB store."""
import shutil
import sys
import tempfile

import actionbase as ab

TABLE = {
    "table": "likes", "comment": "", "storage": "datastore://py/likes",
    "schema": {"type": "EDGE", "direction": "BOTH",
               "source": {"type": "string", "comment": ""},
               "target": {"type": "long", "comment": ""},
               "properties": [
                   {"name": "at", "type": "long", "nullable": False, "comment": ""},
                   {"name": "score", "type": "double", "nullable": True, "comment": ""},
                   {"name": "meta", "type": "object", "nullable": True, "comment": ""}],
               "indexes": [{"index": "recent", "fields": [{"field": "at", "order": "DESC"}]}]}}


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)


def main():
    d = tempfile.mkdtemp(prefix="ab-py-")
    try:
        with ab.Db("lmdb:" + d) as db:
            db.create_database("app")
            db.create_table("app", TABLE)
            edges = [{"version": 1, "source": "u1", "target": t,
                      "properties": {"at": 100 + t, "score": t / 2, "meta": {"k": [t]}}}
                     for t in range(30)]
            res = db.mutate("app", "likes", edges)
            check(len(res) == 30 and all(s == "CREATED" for _, _, s in res), res[:3])
            res = db.mutate("app", "likes", [{"type": ab.DELETE, "version": 2, "source": "u1",
                                              "target": 3}])
            check(res == [("u1", 3, "DELETED")], res)
            e = db.get("app", "likes", "u1", 7)
            check(e is not None and e["properties"] == {"at": 107, "score": 3.5,
                                                        "meta": {"k": [7]}}, e)
            check(db.get("app", "likes", "u1", 3) is None, "deleted edge")
            page, token = db.scan("app", "likes", "recent", "u1", limit=5,
                                  ranges=[("at", "bt", 110, 120)])
            check([x["target"] for x in page] == [20, 19, 18, 17, 16] and token, page)
            rest, token = db.scan("app", "likes", "recent", "u1", limit=5,
                                  ranges=[("at", "bt", 110, 120)], resume=token)
            check([x["target"] for x in rest] == [15, 14, 13, 12, 11], rest)
            every = [x["target"] for x in db.scan_all("app", "likes", "recent", "u1", page=7)]
            check(every == [t for t in range(29, -1, -1) if t != 3], every)
            check(db.count("app", "likes", "u1") == 29, "count out")
            check(db.count("app", "likes", 5, ab.IN) == 1, "count in")
            try:
                db.mutate("app", "likes", [{"version": 1, "source": "u2", "target": "x",
                                            "properties": {"at": 1}}])
                check(False, "a string target on a long column was accepted")
            except ab.Error as err:
                check(err.code == "INVALID" and "target" in err.message, err)
            try:
                db.count("app", "nope", "u1")
                check(False, "missing table")
            except ab.Error as err:
                check(err.code in ("INVALID", "NOT_FOUND"), err)
        print("test_python: ok, libactionbase", ab.version())
    finally:
        shutil.rmtree(d)


main()
