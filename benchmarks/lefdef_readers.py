"""Which maintained PyPI reader can read the shared LEF/DEF designs, and how fast.

Measures ``lefdef``, KLayout's Python module and ``sc-leflib`` on gcd, ispd18_sample and
ispd18_test1: the median of five parse times per file, what each gives of what the
GCell grid and routing need (probed on gcd), and what each does with a malformed file
(run in a child process, as a C++ reader may end the process).

    python benchmarks/lefdef_readers.py [--data ../shared/data/lefdef]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

DESIGNS = {"gcd": ("gcd/gcd.def", "nangate45/Nangate45.lef"),
           "ispd18_sample": ("ispd18_sample/ispd18_sample.input.def",
                             "ispd18_sample/ispd18_sample.input.lef"),
           "ispd18_test1": ("ispd18_test1/ispd18_test1.input.def",
                            "ispd18_test1/ispd18_test1.input.lef")}


def _time(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def lefdef_read(def_path, lef_path):
    from lefdef import C_DefReader, C_LefReader
    lr, dr = C_LefReader(), C_DefReader()
    lef, d = lr.read(str(lef_path)), dr.read(str(def_path))
    return (lr, dr), lef, d


def klayout_read(def_path, lef_path):
    import klayout.db as db
    ly = db.Layout()
    opt = db.LoadLayoutOptions()
    cfg = opt.lefdef_config
    cfg.lef_files = [str(lef_path)]
    cfg.dbu = 0.0005
    opt.lefdef_config = cfg
    ly.read(str(def_path), opt)
    return ly


def leflib_read(lef_path):
    import sc_leflib
    return sc_leflib.parse(str(lef_path))


def coverage(def_path, lef_path) -> dict[str, dict[str, str]]:
    """What each reader gives, probed on one design ("yes", "no", or a note)."""
    _, lef, d = lefdef_read(def_path, lef_path)
    m = lef.c_macros[0]
    ld = {"units (DATABASE MICRONS)": "no", "die area": "yes" if d.c_num_points else "no",
          "TRACKS": f"yes ({d.c_num_tracks_x + d.c_num_tracks_y})",
          "routing layers (dir/pitch/width/spacing/offset)": "no", "vias": "no",
          "macros: size, OBS, pin shapes": "yes" if m.c_size_x and m.c_num_pins else "no",
          "components + orientation": f"yes ({d.c_num_components})",
          "IO pins with layer shapes": f"yes ({d.c_num_pins})",
          "nets and connections": f"yes ({d.c_num_nets})", "special nets": "no",
          "malformed file": "aborts the process (std::terminate)"}
    ly = klayout_read(def_path, lef_path)
    kl = {"units (DATABASE MICRONS)": "warning text only",
          "die area": "as a cell outline", "TRACKS": "no",
          "routing layers (dir/pitch/width/spacing/offset)": "no (layer names only)",
          "vias": "as geometry",
          "macros: size, OBS, pin shapes": f"as geometry ({ly.cells()} cells)",
          "components + orientation": "as cell instances",
          "IO pins with layer shapes": "as geometry", "nets and connections":
          "no (only routed wires carry net names)", "special nets": "as geometry",
          "malformed file": "raises RuntimeError with file and line"}
    tech = leflib_read(lef_path)
    routing = [v for v in tech["layers"].values() if v.get("type") == "ROUTING"]
    sc = {"units (DATABASE MICRONS)": "yes" if "units" in tech else "no",
          "die area": "no (LEF only)", "TRACKS": "no (LEF only)",
          "routing layers (dir/pitch/width/spacing/offset)":
              f"yes, no spacing ({len(routing)} layers)",
          "vias": "no (VIARULEs only)", "macros: size, OBS, pin shapes": "yes, no CLASS",
          "components + orientation": "no (LEF only)",
          "IO pins with layer shapes": "no (LEF only)",
          "nets and connections": "no (LEF only)", "special nets": "no (LEF only)",
          "malformed file": "returns None, prints a notice"}
    return {"lefdef 0.6.0": ld, "klayout 0.30.12": kl, "sc-leflib 0.5.2": sc}


def _malformed_exits(data: Path) -> int:
    """The exit status of a child that gives lefdef a truncated DEF."""
    text = (data / DESIGNS["gcd"][0]).read_text()[:30000]
    code = ("import sys; from lefdef import C_DefReader; r = C_DefReader(); "
            "r.read(sys.argv[1])")
    bad = Path("/tmp/lefdef_readers_truncated.def")
    bad.write_text(text)
    return subprocess.run([sys.executable, "-c", code, str(bad)],
                          capture_output=True).returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path,
                    default=Path(__file__).resolve().parents[2] / "shared" / "data" / "lefdef")
    args = ap.parse_args()
    print(f"machine: {platform.node()} {platform.machine()} {platform.processor() or ''}, "
          f"Python {platform.python_version()}; {time.strftime('%Y-%m-%d %H:%M')}")
    print("\n| design | lefdef (LEF+DEF) ms | klayout (DEF+LEF) ms | sc-leflib (LEF) ms |")
    print("|---|---|---|---|")
    for name, (d, lef) in DESIGNS.items():
        dp, lp = args.data / d, args.data / lef
        t1 = _time(lambda dp=dp, lp=lp: lefdef_read(dp, lp))
        t2 = _time(lambda dp=dp, lp=lp: klayout_read(dp, lp))
        t3 = _time(lambda lp=lp: leflib_read(lp))
        print(f"| {name} | {t1 * 1e3:.1f} | {t2 * 1e3:.1f} | {t3 * 1e3:.1f} |")
    cov = coverage(args.data / DESIGNS["gcd"][0], args.data / DESIGNS["gcd"][1])
    names = list(cov)
    print("\n| needed (probed on gcd) | " + " | ".join(names) + " |")
    print("|---|" + "---|" * len(names))
    for item in cov[names[0]]:
        print(f"| {item} | " + " | ".join(cov[n][item] for n in names) + " |")
    print(f"\nlefdef on a truncated DEF, in a child process: exit status "
          f"{_malformed_exits(args.data)}")
    print(json.dumps({"chosen": "sc-leflib (technology) + lefdef (DEF, macros; in a "
                      "child process)"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
