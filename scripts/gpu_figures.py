"""The figures of a run of scripts/gpu_check.sh, from its database: python scripts/gpu_figures.py DB WALL_SECONDS.

Per op x profile the outcomes and the kill rate, per profile the seconds per mutant (forked child), the run's
stages and isolation. Only the standard library: it runs in the lent image's Python and here alike.
"""

import os
import sqlite3
import sys


def main(db: str, wall: float) -> None:
    print(f"wall {wall:.1f} s")
    if not os.path.exists(db):
        print(f"no database at {db}: nothing recorded (see run.txt and gpu_check.log)")
        return
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    if not conn.execute("select 1 from sqlite_master where name = 'outcomes'").fetchone():
        print(f"no outcomes in {db} (see run.txt and gpu_check.log)")
        return
    print("op x profile: killed timeout survived no_coverage error skipped -> kill rate")
    for op, profile, k, t, s, n, e, sk in conn.execute(
            """select m.op, o.profile, sum(o.status='killed'), sum(o.status='timeout'), sum(o.status='survived'),
                      sum(o.status='no_coverage'), sum(o.status='error'), sum(o.status='skipped')
               from outcomes o join mutants m on m.id = o.mutant_id group by 1, 2 order by 1, 2"""):
        counted = k + t + s + n
        print(f"{op:24} {profile:22} {k:4} {t:3} {s:4} {n:3} {e:3} {sk:4} -> "
              + (f"{(k + t) / counted:.0%}" if counted else "nothing counted"))
    for profile, count, mean in conn.execute(
            """select profile, count(*), avg(duration) from outcomes
               where status in ('killed', 'survived', 'timeout', 'error') group by 1"""):
        print(f"{profile}: {count} mutants run, {mean:.2f} s per mutant (forked child)")
    for timings, protection in conn.execute("select timings, protection from runs"):
        print("stages:", timings)
        print("isolation:", protection)


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]))
