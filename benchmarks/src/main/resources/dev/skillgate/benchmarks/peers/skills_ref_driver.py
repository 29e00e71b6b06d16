"""Runs the Python reference validator (agentskills/agentskills, skills-ref/) over a list of skill
directories and prints one JSON object on stdout. Started by the benchmarks harness when it is given
the path of a checkout:  python3 skills_ref_driver.py <checkout>/skills-ref/src <list.json> <passes>
With an empty list it only imports the package (start-up is timed separately)."""
import json
import sys
import time
from pathlib import Path

started = time.perf_counter()
sys.path.insert(0, sys.argv[1])
from skills_ref import validator  # noqa: E402  (needs strictyaml installed)

imported = time.perf_counter()
with open(sys.argv[2], encoding="utf-8") as f:
    dirs = json.load(f)
passes = int(sys.argv[3])
results = []
for d in dirs:
    try:
        errors = [str(e) for e in validator.validate(Path(d))]
        results.append({"errors": errors})
    except Exception as e:  # the reference crashes on some inputs (e.g. invalid UTF-8)
        results.append({"errors": ["CRASH " + type(e).__name__], "crashed": True})
pass_ms = []
for _ in range(passes):
    t0 = time.perf_counter()
    for d in dirs:
        try:
            validator.validate(Path(d))
        except Exception:
            pass
    pass_ms.append((time.perf_counter() - t0) * 1000)
print(json.dumps({"tool": "skills-ref (Python)", "version": "checkout", "importMs": (imported - started) * 1000,
                  "passMs": pass_ms, "results": results}))
