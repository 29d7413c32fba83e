"""How many of a grammar rule's statements a real MariaDB accepts, by error code.

    PYTHONPATH=python /usr/bin/python3 tools/builder_validity.py [RULE] [SCHEMAS] [PER_SCHEMA]

RULE (default `_query`) is the body of `query:`; it runs PER_SCHEMA (300) statements on each
of SCHEMAS (8) random schemas (`Schema.random(1..SCHEMAS)`, data seed the same), in one session
with max_statement_time = 2 s, on a managed server in a temporary directory. Prints the share
that succeeded and each error code's share with examples: the README's validity figures.
"""

import collections
import sys
import tempfile

sys.path.insert(0, __file__.rsplit("/tools/", 1)[0] + "/python")
import gauntlet  # noqa: E402
from gauntlet import _core  # noqa: E402


def main() -> int:
    rule = sys.argv[1] if len(sys.argv) > 1 else "_query"
    schemas = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    per = int(sys.argv[3]) if len(sys.argv) > 3 else 300
    errors, examples = collections.Counter(), collections.defaultdict(list)
    total = ok = 0
    with tempfile.TemporaryDirectory() as tmp, gauntlet.ManagedServer(tmp + "/server", core_file=False) as server:
        for seed in range(1, schemas + 1):
            schema = gauntlet.Schema.random(seed)
            _core.load_schema(_core.Connection.open(server.connection), schema._s, seed, False)
            c = server.connect(database="test")
            c.execute("SET SESSION max_statement_time = 2")
            gen = gauntlet.Grammar.from_string(f"query: {rule} ;").generator(seed=seed, schema=schema)
            for _ in range(per):
                sql = gen.next()
                r = c.execute(sql)
                total += 1
                if r.ok:
                    ok += 1
                    continue
                code = r.outcome["error_code"]
                errors[code] += 1
                if len(examples[code]) < 2:
                    examples[code].append(f"{r.outcome['message'][:120]}  <- {sql[:300]}")
                if r.outcome["kind"] in ("connection_lost", "server_crashed"):
                    print(f"the server went away on: {sql}")
                    return 1
    print(f"{rule}: {ok:,} of {total:,} ok ({100 * ok / total:.1f}%)")
    for code, n in errors.most_common():
        print(f"  error {code}: {n:,} ({100 * n / total:.2f}%)")
        for e in examples[code]:
            print(f"    {e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
