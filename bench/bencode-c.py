"""Times bencode-c (a C extension for Python) for bencode-c.sh.

    bencode-c.py filter LIST FILE...   writes to LIST the FILEs bdecode accepts, one a line
    bencode-c.py time LIST REPEATS PASSES
                                       prints the best times, in ns, of REPEATS runs of PASSES
                                       passes over the files of LIST, per pass, wall and CPU
                                       (process time): "decode WALL CPU", "encode WALL CPU"
                                       (bencode of what bdecode returned), and "files N bytes B"

bencode_c must be importable (PYTHONPATH).
"""

import sys
import time

import bencode_c


def read(path):
    with open(path, "rb") as f:
        return f.read()


def best(fn, items, repeats, passes):
    """Returns the least wall and CPU time of a pass, in ns."""
    wall, cpu = None, None
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        for _ in range(passes):
            for x in items:
                fn(x)
        w = (time.perf_counter() - w0) / passes
        c = (time.process_time() - c0) / passes
        wall = w if wall is None else min(wall, w)
        cpu = c if cpu is None else min(cpu, c)
    return "%d %d" % (wall * 1e9, cpu * 1e9)


def main():
    if sys.argv[1] == "filter":
        with open(sys.argv[2], "w") as out:
            for path in sys.argv[3:]:
                try:
                    bencode_c.bdecode(read(path))
                except Exception as e:  # bencode-c's own error types, MemoryError...
                    print("bencode-c rejects %s: %s" % (path, e), file=sys.stderr)
                    continue
                out.write(path + "\n")
        return
    with open(sys.argv[2]) as f:
        files = [read(line.rstrip("\n")) for line in f if line.strip()]
    repeats, passes = int(sys.argv[3]), int(sys.argv[4])
    values = [bencode_c.bdecode(b) for b in files]
    print("decode", best(bencode_c.bdecode, files, repeats, passes))
    print("encode", best(bencode_c.bencode, values, repeats, passes))
    print("files %d bytes %d" % (len(files), sum(len(b) for b in files)))


if __name__ == "__main__":
    main()
