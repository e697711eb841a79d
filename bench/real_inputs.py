"""bench/real_inputs.py - the inputs of the "real programs" table
(bench/real_bench.py), made by a seeded PRNG: the same bytes on every run
and every machine, nothing downloaded.

xz_input       text from a 5,000-word made-up vocabulary, with a 4 KiB block
               of random bytes after about one paragraph in seven: xz -0
               compresses it to ~39% (neither all text nor incompressible)
sql_workload   a script for the sqlite3 shell: a table and an index, N
               inserts in transactions of 1,000, M updates in one
               transaction, S range selects (rows out through many
               sqlite3_step calls), and a closing aggregate whose expected
               value is computed here, so that a run's output can be checked
"""
import random


def xz_input(path, size, seed=8):
    rng = random.Random(seed)
    letters = "etaoinshrdlucmfwypvbgkqjxz"
    words = ["".join(rng.choice(letters) for _ in range(rng.randint(2, 11)))
             for _ in range(5000)]
    out = bytearray()
    while len(out) < size:
        out += " ".join(rng.choices(words, k=2000)).encode() + b"\n"
        if rng.random() < 0.15:
            out += rng.randbytes(4096)
    with open(path, "wb") as f:
        f.write(out[:size])


def sql_workload(path, n_insert, n_update, n_select, seed=3):
    """Writes the script; returns (statements, expected last output line,
    expected number of output lines)."""
    rng = random.Random(seed)
    rows = {}
    out = ["CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER NOT NULL, v TEXT NOT NULL);",
           "CREATE INDEX t_k ON t(k);"]
    for i in range(1, n_insert + 1):
        if i % 1000 == 1:
            out.append("BEGIN;")
        k, v = rng.randrange(10000), "v%x" % rng.getrandbits(40)
        rows[i] = [k, v]
        out.append("INSERT INTO t(id, k, v) VALUES (%d, %d, '%s');" % (i, k, v))
        if i % 1000 == 0 or i == n_insert:
            out.append("COMMIT;")
    out.append("BEGIN;")
    for _ in range(n_update):
        i, d = rng.randrange(1, n_insert + 1), rng.randrange(1, 100)
        rows[i][0] += d
        out.append("UPDATE t SET k = k + %d WHERE id = %d;" % (d, i))
    out.append("COMMIT;")
    lines = 0
    for _ in range(n_select):
        lo = rng.randrange(10000)
        lines += sum(1 for k, _ in rows.values() if lo <= k <= lo + 200)
        out.append("SELECT id, k, v FROM t WHERE k BETWEEN %d AND %d ORDER BY id;"
                   % (lo, lo + 200))
    out.append("SELECT count(*), sum(k), sum(length(v)) FROM t;")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    last = "%d|%d|%d" % (len(rows), sum(r[0] for r in rows.values()),
                         sum(len(r[1]) for r in rows.values()))
    return len(out), last, lines + 1
