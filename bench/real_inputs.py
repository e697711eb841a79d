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
sql_text_workload  a string-heavy script for the sqlite3 shell (the overflow
               table, bench/overflow_bench.py): printf, ||, substr, upper,
               replace, LIKE, instr, group_concat; its last line and line
               count computed here
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


def sql_text_workload(path, n_docs, n_selects, seed=5):
    """A string-heavy script for the sqlite3 shell (bench/overflow_bench.py):
    documents of made-up words inserted with printf and ||, rewritten with
    upper, substr and replace, then selects through LIKE, instr,
    group_concat and printf. Every string the rows hold is computed here
    too: returns (statements, expected last output line, expected number
    of output lines)."""
    rng = random.Random(seed)
    letters = "etaoinshrdlucmfwypvbgkqjxz"
    words = sorted({"".join(rng.choice(letters) for _ in range(rng.randint(3, 9)))
                    for _ in range(3000)})
    docs, tags = {}, []
    out = ["CREATE TABLE doc(id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL);",
           "CREATE TABLE tag(doc INTEGER NOT NULL, name TEXT NOT NULL);"]
    for i in range(1, n_docs + 1):
        if i % 500 == 1:
            out.append("BEGIN;")
        title = " ".join(rng.choices(words, k=3))
        body = " ".join(rng.choices(words, k=rng.randint(20, 60)))
        names = sorted(set(rng.choices(words, k=4)))
        docs[i] = [title, "%s|%05d|%s" % (title, i, body)]
        tags += [(i, n) for n in names]
        out.append("INSERT INTO doc VALUES (%d, '%s', printf('%%s|%%05d|', '%s', %d) || '%s');"
                   % (i, title, title, i, body))
        out.append("INSERT INTO tag VALUES %s;"
                   % ", ".join("(%d, '%s')" % (i, n) for n in names))
        if i % 500 == 0 or i == n_docs:
            out.append("COMMIT;")
    # strings rewritten in place: longer bodies (the old value copied into
    # a bigger one), titles of the same length
    out.append("UPDATE doc SET body = body || ' ' || upper(substr(title, 1, 5)) "
               "WHERE id % 5 = 0;")
    out.append("UPDATE doc SET title = replace(title, 'a', 'A') WHERE id % 3 = 0;")
    for i, d in docs.items():
        if i % 5 == 0:
            d[1] += " " + d[0][:5].upper()
        if i % 3 == 0:
            d[0] = d[0].replace("a", "A")
    lines = 0
    for s in range(n_selects):
        w = rng.choice(words)
        kind = s % 4
        if kind == 0:  # LIKE is case-blind for ASCII
            out.append("SELECT id, substr(body, 1, 40) || '...' FROM doc "
                       "WHERE title LIKE '%%%s%%' ORDER BY id;" % w[:3])
            lines += sum(1 for t, _ in docs.values() if w[:3] in t.lower())
        elif kind == 1:
            out.append("SELECT name, count(*), length(group_concat(doc, ',')) FROM tag "
                       "WHERE name LIKE '%s%%' GROUP BY name ORDER BY name;" % w[:2])
            lines += len({n for _, n in tags if n.startswith(w[:2])})
        elif kind == 2:
            out.append("SELECT printf('%%-30s|%%8d', title, length(body)) FROM doc "
                       "WHERE instr(body, '%s') > 0 ORDER BY length(body) DESC, id "
                       "LIMIT 20;" % w)
            lines += min(20, sum(1 for _, b in docs.values() if w in b))
        else:  # one line, empty when no row (group_concat gives NULL)
            lo = rng.randrange(1, n_docs + 1)
            out.append("SELECT group_concat(upper(title), ';') FROM doc "
                       "WHERE id BETWEEN %d AND %d;" % (lo, lo + 50))
            lines += 1
    out.append("SELECT count(*), sum(length(title)), sum(length(body)), "
               "(SELECT count(*) FROM tag) FROM doc;")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    last = "%d|%d|%d|%d" % (len(docs), sum(len(t) for t, _ in docs.values()),
                            sum(len(b) for _, b in docs.values()), len(tags))
    return len(out), last, lines + 1
